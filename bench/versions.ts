/**
 * Version list latency on one document with 20,000 Published Versions, at `start=0` and at
 * `start=10000` (or the last full page, with fewer versions), through the real app
 * (`app.handle`). Goal: ratio under 2.
 *
 *   bun bench/versions.ts [versions=20000] [requests=300]
 */
import { createApp } from '../api/app'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { fmt, summarize } from './util'
import { addVersions, BENCH_TOKEN, openVersionsDb } from './versions-db'

const VERSIONS = Number(process.argv[2] ?? 20_000)
const REQUESTS = Number(process.argv[3] ?? 300)
// The deep offset: 10,000, or the last full page of 25 on a smaller document.
const DEEP = Math.max(0, Math.min(10_000, VERSIONS - 25))
const { path, db, metrics } = await openVersionsDb('versions')
let t0 = performance.now()
await addVersions(db, metrics, 'pages/hot', VERSIONS)
console.log(`built ${VERSIONS} versions in ${fmt((performance.now() - t0) / 1000, 1)} s`)

const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path }), log: createLogger('silent', 'bench'), metrics })
await app.modules
const headers = { authorization: `Bearer ${BENCH_TOKEN}` }

async function measure(start: number) {
  const url = `http://localhost/content/versions/t?id=pages/hot&start=${start}`
  for (let i = 0; i < 20; i++) await app.handle(new Request(url, { headers })) // warm-up
  const samples: number[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now()
    const res = await app.handle(new Request(url, { headers }))
    const body = (await res.json()) as { rows: unknown[] }
    samples.push(performance.now() - t)
    if (res.status !== 200 || body.rows.length !== 25) throw new Error(`unexpected answer at start=${start}`)
  }
  return summarize(samples)
}

const first = await measure(0)
const deep = await measure(DEEP)
console.log(`start=0:     p50 ${fmt(first.p50, 3)} ms  p99 ${fmt(first.p99, 3)} ms`)
console.log(`start=${DEEP}: p50 ${fmt(deep.p50, 3)} ms  p99 ${fmt(deep.p99, 3)} ms`)
console.log(`ratio start=${DEEP} / start=0 (p50): ${fmt(deep.p50 / first.p50)}  (goal < 2)`)
