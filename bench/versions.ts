/**
 * Version list latency on one document with 20,000 Published Versions, at `start=0` and at
 * `start=10000` (or the last full page, with fewer versions), through the real app
 * (`app.handle`). Goal: ratio under 2.
 *
 * With DATABASE_URL set, the same document is copied to a fresh PostgreSQL database on that server
 * (`cli copy-to-postgres`, dropped at the end) and the same requests go to an app on it, as the
 * api runs there (db/pg/handle.ts); its figures are printed beside SQLite's.
 *
 *   bun bench/versions.ts [versions=20000] [requests=300]
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/postgres bun bench/versions.ts 5000
 */
import { createApp } from '../api/app'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import type { Db } from '../db/client'
import { maskUrl } from '../db/pg/url'
import { fmt, summarize } from './util'
import { addVersions, BENCH_TOKEN, openVersionsDb } from './versions-db'
import { BENCH_DATABASE_URL, benchPgDatabase } from './pg-db'

const VERSIONS = Number(process.argv[2] ?? 20_000)
const REQUESTS = Number(process.argv[3] ?? 300)
// The deep offset: 10,000, or the last full page of 25 on a smaller document.
const DEEP = Math.max(0, Math.min(10_000, VERSIONS - 25))
const { path, db, metrics } = await openVersionsDb('versions')
let t0 = performance.now()
await addVersions(db, metrics, 'pages/hot', VERSIONS)
console.log(`built ${VERSIONS} versions in ${fmt((performance.now() - t0) / 1000, 1)} s`)

const headers = { authorization: `Bearer ${BENCH_TOKEN}` }

/** p50/p99 of the first page and of the page at `deep`, requested in turn (so a drift in load hits both alike). */
async function measure(app: ReturnType<typeof createApp>, deep: number) {
  const urls = [0, deep].map((start) => `http://localhost/content/versions/t?id=pages/hot&start=${start}`)
  for (let i = 0; i < 20; i++) for (const url of urls) await app.handle(new Request(url, { headers })) // warm-up
  const samples: number[][] = [[], []]
  for (let i = 0; i < REQUESTS; i++) {
    for (const [k, url] of urls.entries()) {
      const t = performance.now()
      const res = await app.handle(new Request(url, { headers }))
      const body = (await res.json()) as { rows: unknown[] }
      samples[k]!.push(performance.now() - t)
      if (res.status !== 200 || body.rows.length !== 25) throw new Error(`unexpected answer at ${url}`)
    }
  }
  return samples.map(summarize) as [ReturnType<typeof summarize>, ReturnType<typeof summarize>]
}

/** The first page and the deep one through an app on `on`; prints them and answers the first page's p50. */
async function figures(label: string, on: Db, env: Record<string, string>, vs?: number) {
  const app = createApp({ db: on, config: loadConfig(env), log: createLogger('silent', 'bench'), metrics })
  await app.modules
  const [first, deep] = await measure(app, DEEP)
  const times = (p50: number, base?: number) => (base === undefined ? '' : `  (${fmt(p50 / base)} x SQLite)`)
  console.log(`${label}:`)
  console.log(`  start=0:     p50 ${fmt(first.p50, 3)} ms  p99 ${fmt(first.p99, 3)} ms${times(first.p50, vs)}`)
  console.log(`  start=${DEEP}: p50 ${fmt(deep.p50, 3)} ms  p99 ${fmt(deep.p99, 3)} ms`)
  console.log(`  ratio start=${DEEP} / start=0 (p50): ${fmt(deep.p50 / first.p50)}  (goal < 2)`)
  return first.p50
}

const sqliteFirst = await figures('SQLite', db, { DATABASE_PATH: path })
if (BENCH_DATABASE_URL) {
  db.$client.close() // its WAL copied back: the copy reads the file
  const pg = await benchPgDatabase(BENCH_DATABASE_URL, 'versions', path)
  try {
    await figures(`PostgreSQL (${maskUrl(BENCH_DATABASE_URL)})`, pg.db as Db, { DATABASE_PATH: path, DATABASE_URL: pg.url }, sqliteFirst)
  } finally {
    await pg.drop()
  }
}
