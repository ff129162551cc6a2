/**
 * Version list latency on one document with 20,000 Published Versions, at `start=0` and at
 * `start=10000` (or the last full page, with fewer versions), through the real app
 * (`app.handle`). Goal: ratio under 2.
 *
 *   bun bench/versions.ts [versions=20000] [requests=300]
 */
import { openDb } from '../db/client'
import { createApp } from '../api/app'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { publishCounted } from '../core/publish/service'
import { saveDoc } from '../db/store'
import { seed } from '../cli/seed'
import { fmt, summarize, tempDbPath } from './util'

const VERSIONS = Number(process.argv[2] ?? 20_000)
const REQUESTS = Number(process.argv[3] ?? 300)
// The deep offset: 10,000, or the last full page of 25 on a smaller document.
const DEEP = Math.max(0, Math.min(10_000, VERSIONS - 25))
const path = tempDbPath('versions')
const db = openDb(path)
const metrics = createMetrics()
seed(db, metrics, {
  teams: [{
    id: 't', workspaceId: 'w', locales: ['en', 'de'], defaultLocale: 'en',
    contentTypes: [{ name: 'page', collection: 'pages', fields: [{ name: 'title', localizable: true }] }],
    users: [{ id: 'u', token: 'bench-token-1', capabilities: ['EditContent', 'ChangeLiveContent'] }],
  }],
})
let t0 = performance.now()
// Drafts are written through the store (setup only, no activity entries), then published
// through the real publish, which records each Published Version.
for (let i = 0; i < VERSIONS; i++) {
  const draft = { id: 'pages/hot/draft', contentType: 'page', fields: {}, locales: { en: { title: `v${i}` }, de: { title: `v${i}` } } }
  saveDoc(db, { teamId: 't', id: draft.id, canonicalId: 'pages/hot', kind: 'draft', collection: 'pages', body: draft })
  publishCounted(db, metrics, { teamId: 't', id: 'pages/hot', stampUserId: 'u', actorUserId: 'u', source: 'api' })
}
console.log(`built ${VERSIONS} versions in ${fmt((performance.now() - t0) / 1000, 1)} s`)

const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path }), log: createLogger('silent', 'bench'), metrics })
await app.modules
const headers = { authorization: 'Bearer bench-token-1' }

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
