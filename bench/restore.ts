/**
 * Restore latency on a document with 20 locales, through `app.handle` on a temp-file
 * database: whole-draft restore and a 3-locale restore, p50/p99, plus a same-run baseline
 * (a plain draft write of the same document) so the figures can be compared across machines.
 *
 *   bun bench/restore.ts [iterations=500]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../api/app'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { seed } from '../cli/seed'
import { openDb } from '../db/client'

const N = Number(process.argv[2] ?? 500)
const LOCALES = ['en', 'de', 'fr', 'it', 'es', 'pt', 'nl', 'sv', 'da', 'nb', 'fi', 'pl', 'cs', 'sk', 'hu', 'ro', 'el', 'tr', 'ja', 'ko']
const TOKEN = 'tok-bench-editor-0'

const dir = mkdtempSync(join(tmpdir(), 'bench-restore-'))
const path = join(dir, 'content.db')
const db = openDb(path)
const metrics = createMetrics()
await seed(db, metrics, {
  teams: [{
    id: 'bench', workspaceId: 'main', locales: LOCALES, defaultLocale: 'en',
    contentTypes: [{ name: 'page', collection: 'pages', urls: true, fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'body', localizable: true }, { name: 'parent' }] }],
    users: [{ id: 'u-bench', token: TOKEN, capabilities: ['EditContent', 'ChangeLiveContent'] }],
  }],
})
const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path, LOG_LEVEL: 'silent' }), log: createLogger('silent', 'bench'), metrics })
await app.modules

async function call(method: string, url: string, body: unknown) {
  const res = await app.handle(new Request(`http://localhost${url}`, {
    method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  }))
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`)
  return res.json() as Promise<any>
}
const doc = (id: string, tag: string) => ({
  id, contentType: 'page', fields: { parent: null },
  locales: Object.fromEntries(LOCALES.map((l) => [l, { title: `${tag} ${l}`, slug: `${tag}-${l}`, body: `${tag} ${l} `.repeat(60) }])),
})

/** A document published twice (v1, v2) with a draft of its own; answers the v1 reference. */
async function prepare(id: string): Promise<string> {
  await call('POST', '/content/bench', doc(id, 'v1'))
  await call('POST', '/content/publish/bench', { ids: [id] })
  await call('POST', '/content/bench', doc(id, 'v2'))
  await call('POST', '/content/publish/bench', { ids: [id] })
  await call('POST', '/content/bench', doc(`${id}/draft`, 'draft'))
  const res = await app.handle(new Request(`http://localhost/content/versions/bench?id=${id}`, { headers: { authorization: `Bearer ${TOKEN}` } }))
  return ((await res.json()) as any).rows[1].version
}

async function measure(label: string, run: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 50; i++) await run(i)
  const times: number[] = []
  for (let i = 0; i < N; i++) {
    const t0 = performance.now()
    await run(i)
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!
  return { label, p50: at(0.5), p99: at(0.99) }
}

// Each mode gets its own document, so one mode's activity log does not weigh on another's.
const [a, b, c] = ['pages/bench-edit', 'pages/bench-whole', 'pages/bench-list']
await prepare(a)
const vWhole = await prepare(b)
const vList = await prepare(c)
const edited = doc(`${a}/draft`, 'draft')
const results = [
  // Baseline: an editor's save that changes one locale of the same 20-locale draft.
  await measure('draft write (baseline)', (i) => call('POST', '/content/bench', { ...edited, locales: { ...edited.locales, de: { title: `edit ${i}`, slug: 'x', body: 'y' } } })),
  await measure('restore, whole draft', () => call('POST', '/content/apply-version/bench', { kind: 'revision', documentId: b, version: vWhole })),
  await measure('restore, 3 locales', () => call('POST', '/content/apply-version/bench', { kind: 'revision', documentId: c, version: vList, locales: ['de', 'fr', 'ja'] })),
]
const base = results[0]!.p50
console.log(`restore latency, 20 locales, ${N} requests each, through app.handle on a temp SQLite file (Bun ${Bun.version})`)
for (const r of results) {
  console.log(`${r.label.padEnd(24)} p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   p50 vs baseline ${(r.p50 / base).toFixed(2)}x`)
}
db.$client.close()
rmSync(dir, { recursive: true, force: true })
