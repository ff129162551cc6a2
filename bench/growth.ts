/**
 * Cost that does not grow with history (docs/storage-and-growth.md): a small and a large team,
 * each in its own database file, built through the product's own write and publish functions,
 * then the same requests through `app.handle` on both, p50 side by side with the growth factor
 * (large / small; goal <= 1.5 each). Then bytes on disk per Published Version and per document,
 * and the version body read on compressed rows against the same rows in plain text ("today").
 *
 *   bun bench/growth.ts [smallDocs=1000] [largeDocs=20000] [smallVersions=2000] [largeVersions=100000] [requests=200]
 */
import { createApp } from '../api/app'
import { writeDocument } from '../core/content/service'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { publishOne } from '../core/publish/service'
import { encodeVersionRef } from '../core/versions/service'
import { seed } from '../cli/seed'
import { openDb, type SqliteDb as Db } from '../db/client'
import { decodeStored, type StoredBody } from '../db/revision-body'
import { compressRevisions } from '../dispatcher/compress-revisions'
import { fmt, summarize, tempDbPath } from './util'

const arg = (i: number, fallback: number) => Number(process.argv[2 + i] ?? fallback)
const SIZES = {
  small: { docs: arg(0, 1000), versions: arg(2, 2000), hot: 51, pages: 0 },
  large: { docs: arg(1, 20_000), versions: arg(3, 100_000), hot: 2001, pages: 0 },
}
const REQUESTS = arg(4, 200)
// Pages (with URLs, under a webhook at the end): 100 vs 10k at the default sizes.
SIZES.small.pages = Math.min(100, Math.floor(SIZES.small.docs / 2))
SIZES.large.pages = Math.min(10_000, Math.floor(SIZES.large.docs / 2))
const LOCALES = ['en', 'de', 'fr', 'it', 'es']
const TOKEN = 'bench-token-growth'
const HOT = 'articles/hot'
const TWIN = 'articles/hot-twin'
const WORDS = 'content service keeps every published version of a page so editors can look back restore and compare what the site showed'.split(' ')

/** The i-th document: pages first (with URLs), then articles, then products (the last 5%). */
function kindOf(i: number, size: { docs: number; pages: number }): { id: string; type: 'page' | 'article' | 'product' } {
  const n = String(i).padStart(6, '0')
  if (i < size.pages) return { id: `pages/p${n}`, type: 'page' }
  if (i < Math.floor(size.docs * 0.95)) return { id: `articles/a${n}`, type: 'article' }
  return { id: `products/x${n}`, type: 'product' }
}

const text = (seed: number, n: number) => Array.from({ length: n }, (_, k) => WORDS[(seed * 7 + k * 13) % WORDS.length]).join(' ')

/** A document of about 850 bytes of JSON; version `v` changes a few fields of the last one. */
function body(id: string, type: string, n: number, v: number) {
  const locales = Object.fromEntries(LOCALES.slice(0, 3).map((l, k) => [l, {
    title: `${l} ${type} ${n} ${k === 0 ? `rev ${v}` : `rev ${Math.floor(v / 3)}`}`,
    slug: `${type}-${n}-${l}`,
    body: text(n + k + (k === 0 ? v : 0), 28),
  }]))
  const fields = type === 'page' ? { parent: n % 10 === 0 ? null : `pages/p${String(n - (n % 10)).padStart(6, '0')}` } : type === 'product' ? { sku: `SKU-${n}` } : {}
  return { id: `${id}/draft`, contentType: type, fields, locales }
}

async function buildTeam(label: 'small' | 'large') {
  const size = SIZES[label]
  const path = tempDbPath(`growth-${label}`)
  const db = openDb(path)
  const metrics = createMetrics()
  await seed(db, metrics, {
    teams: [{
      id: 't', workspaceId: 'w', locales: LOCALES, defaultLocale: 'en',
      contentTypes: [
        { name: 'page', collection: 'pages', urls: true, fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'body', localizable: true }, { name: 'parent' }] },
        { name: 'article', collection: 'articles', fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'body', localizable: true }] },
        { name: 'product', collection: 'products', fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'body', localizable: true }, { name: 'sku' }] },
      ],
      users: [{ id: 'u', token: TOKEN, capabilities: ['EditContent', 'ChangeLiveContent', 'ManageWebhooks'] }],
    }],
  })
  const t0 = performance.now()
  const versionOf = new Map<string, number>()
  const publishNext = async (id: string, type: string, n: number) => {
    const v = versionOf.get(id) ?? 0
    versionOf.set(id, v + 1)
    await writeDocument(db, { teamId: 't', userId: 'u', doc: body(id, type, n, v) as never, mayChangeLive: true })
    const item = await publishOne(db, { teamId: 't', id, stampUserId: 'u', actorUserId: 'u', source: 'api' })
    if (item.status !== 0) throw new Error(`publish ${id}: ${JSON.stringify(item)}`)
  }
  const docs = size.docs - 1 // and the hot document
  for (let i = 0; i < docs; i++) await publishNext(kindOf(i, size).id, kindOf(i, size).type, i)
  for (let v = 0, i = 0; v < size.versions - docs - size.hot; v++, i = (i + 7919) % docs) await publishNext(kindOf(i, size).id, kindOf(i, size).type, i)
  for (let v = 0; v < size.hot; v++) await publishNext(HOT, 'article', docs)
  // The large team's twin of the hot document, kept apart from the sizes: its rows are turned
  // back into plain text below, for the version body read against "today" in the same run.
  if (label === 'large') for (let v = 0; v < size.hot; v++) await publishNext(TWIN, 'article', docs)
  const built = count(db, `SELECT count(*) AS n FROM revisions WHERE document_id <> '${TWIN}'`)
  const pages = count(db, "SELECT count(*) AS n FROM documents WHERE kind = 'canonical' AND collection = 'pages'")
  console.log(`${label}: ${size.docs} documents (${pages} pages), ${built} Published Versions (hot document: ${size.hot}), built in ${fmt((performance.now() - t0) / 1000, 1)} s`)
  const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }), log: createLogger('silent', 'bench'), metrics })
  await app.modules
  const refs = (db.$client.query(`SELECT change_vector AS cv FROM revisions WHERE document_id = ? ORDER BY ordinal`).all(HOT) as { cv: string }[]).map((r) => encodeVersionRef(r.cv))
  const ids = Array.from({ length: docs }, (_, i) => kindOf(i, size))
  return { label, db, app, refs, ids, docs, pages: size.pages }
}

type Team = Awaited<ReturnType<typeof buildTeam>>
const count = (db: Db, sql: string) => (db.$client.query(sql).get() as { n: number }).n

async function call(team: Team, method: string, url: string, payload?: unknown) {
  const res = await team.app.handle(new Request(`http://localhost${url}`, {
    method, headers: { authorization: `Bearer ${TOKEN}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  }))
  const out = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${out.slice(0, 300)}`)
  return out
}

/** p50 of `run` (after a warm-up), in ms. */
async function p50(run: (i: number) => Promise<unknown>, n = REQUESTS) {
  for (let i = 0; i < Math.min(20, n); i++) await run(i)
  const samples: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await run(i)
    samples.push(performance.now() - t)
  }
  return summarize(samples).p50
}

const teams = { small: await buildTeam('small'), large: await buildTeam('large') }
const rows: { label: string; small: number; large: number; unit: string }[] = []
/** The same request on both teams, alternately (a shared machine's load falls on both alike). */
async function compare(label: string, run: (team: Team, i: number) => Promise<unknown>, n = REQUESTS) {
  const samples = { small: [] as number[], large: [] as number[] }
  for (let i = -Math.min(20, n); i < n; i++) {
    for (const key of ['small', 'large'] as const) {
      const t = performance.now()
      await run(teams[key], Math.abs(i))
      if (i >= 0) samples[key].push(performance.now() - t)
    }
  }
  rows.push({ label, small: summarize(samples.small).p50, large: summarize(samples.large).p50, unit: 'ms' })
}
const pick = (team: Team, i: number) => team.ids[(i * 104_729) % team.docs]!

await compare('publish', (team, i) => call(team, 'POST', '/content/publish/t', { ids: [pick(team, i).id] }))
await compare('versions, first page', (team) => call(team, 'GET', `/content/versions/t?id=${HOT}`))
await compare('versions, deep page', (team) => call(team, 'GET', `/content/versions/t?id=${HOT}&start=${Math.max(0, team.refs.length - 25)}`))
await compare('version body', (team, i) => call(team, 'GET', `/content/version/t?id=${HOT}&version=${team.refs[(i * 31) % team.refs.length]}`))
await compare('restore whole (oldest version)', (team) => call(team, 'POST', '/content/apply-version/t', { kind: 'revision', documentId: HOT, version: team.refs[0] }))
await compare('restore 3 locales (oldest version)', (team) => call(team, 'POST', '/content/apply-version/t', { kind: 'revision', documentId: HOT, version: team.refs[0], locales: ['de', 'fr', 'it'] }))
await compare('document list, first page', (team) => call(team, 'GET', '/content/list/t'))
await compare('document list, deep page', (team) => call(team, 'GET', `/content/list/t?after=${encodeURIComponent(team.ids[Math.floor(team.docs * 0.9)]!.id)}`))
await compare('document list, by collection', (team) => call(team, 'GET', '/content/list/t?collection=products'))
for (const team of Object.values(teams)) await call(team, 'POST', '/teams/t/webhooks', { label: 'site', provider: 'custom', target: 'http://127.0.0.1:9/hook', events: ['content.published'] })
await compare('publish a page, with a webhook', (team, i) => call(team, 'POST', '/content/publish/t', { ids: [team.ids[(i * 104_729) % team.pages]!.id] }))

/** Bytes of the B-trees of each table (its indexes included), from SQLite's dbstat. */
function storage(db: Db) {
  const bytes = (tables: string[]) => tables.reduce((sum, t) => sum + count(db, `SELECT coalesce(sum(s.pgsize), 0) AS n FROM dbstat s JOIN sqlite_master m ON m.name = s.name WHERE m.tbl_name = '${t}'`), 0)
  const versions = count(db, 'SELECT count(*) AS n FROM revisions')
  const documents = count(db, "SELECT count(*) AS n FROM documents WHERE kind = 'canonical'")
  let json = 0
  for (const r of db.$client.query('SELECT body FROM revisions').iterate() as Iterable<{ body: StoredBody }>) json += Buffer.byteLength(decodeStored(db.$client, r.body))
  return { perVersion: bytes(['revisions']) / versions, perDocument: bytes(['documents', 'revision_locales']) / documents, jsonPerVersion: json / versions }
}

const stored = { small: storage(teams.small.db), large: storage(teams.large.db) }
rows.push({ label: 'bytes per Published Version', small: stored.small.perVersion, large: stored.large.perVersion, unit: 'B' })
rows.push({ label: 'bytes per document', small: stored.small.perDocument, large: stored.large.perDocument, unit: 'B' })

console.log(`\np50 of ${REQUESTS} requests each through app.handle, temp SQLite files (Bun ${Bun.version})`)
console.log(`${'measure'.padEnd(36)}${'small'.padStart(11)}${'large'.padStart(11)}   factor (goal <= 1.5)`)
for (const r of rows) {
  const f = (n: number) => (r.unit === 'ms' ? `${fmt(n, 3)} ms` : `${fmt(n, 0)} B`).padStart(11)
  console.log(`${r.label.padEnd(36)}${f(r.small)}${f(r.large)}   ${fmt(r.large / r.small)}`)
}

// The version body read on compressed rows against the same bodies in plain text, as an older
// api wrote them: the twin's rows rewritten to their text, requests alternating between the two.
const large = teams.large
const c = large.db.$client
const plain = c.query('UPDATE revisions SET body = ?, summary = NULL WHERE seq = ?')
const toPlain = (where: string) => c.transaction(() => {
  for (const r of c.query(`SELECT seq, body FROM revisions ${where}`).all() as { seq: number; body: StoredBody }[]) plain.run(decodeStored(c, r.body), r.seq)
})()
toPlain(`WHERE document_id = '${TWIN}'`)
const twinRefs = (c.query('SELECT change_vector AS cv FROM revisions WHERE document_id = ? ORDER BY ordinal').all(TWIN) as { cv: string }[]).map((r) => encodeVersionRef(r.cv))
const reads = { compressed: [] as number[], plain: [] as number[], compressedPage: [] as number[], plainPage: [] as number[] }
for (let i = -20; i < REQUESTS * 2; i++) {
  for (const [key, id, refs] of [['compressed', HOT, large.refs], ['plain', TWIN, twinRefs]] as const) {
    let t = performance.now()
    await call(large, 'GET', `/content/version/t?id=${id}&version=${refs[(Math.abs(i) * 31) % refs.length]}`)
    if (i >= 0) reads[key].push(performance.now() - t)
    t = performance.now()
    await call(large, 'GET', `/content/versions/t?id=${id}&start=${(Math.abs(i) * 97) % (refs.length - 25)}`)
    if (i >= 0) reads[`${key}Page`].push(performance.now() - t)
  }
}
const p50s = Object.fromEntries(Object.entries(reads).map(([k, v]) => [k, summarize(v).p50])) as Record<keyof typeof reads, number>
// Bytes of the same versions in plain text: every row rewritten as an older api wrote it.
toPlain('')
const before = storage(large.db)
const t0 = performance.now()
let converted = 0
for (let n; (n = compressRevisions(large.db)) > 0; ) converted += n
const convertSeconds = (performance.now() - t0) / 1000
console.log(`\nlarge team, JSON body ${fmt(stored.large.jsonPerVersion, 0)} B a version on average:`)
console.log(`  compressed as written: ${fmt(stored.large.perVersion, 0)} B a version on disk = ${fmt(stored.large.perVersion / stored.large.jsonPerVersion)}x the body (goal <= 0.5)`)
console.log(`  plain text (before):   ${fmt(before.perVersion, 0)} B a version on disk = ${fmt(before.perVersion / before.jsonPerVersion)}x the body`)
console.log(`  version body p50, ${REQUESTS * 2} reads each, alternating: compressed ${fmt(p50s.compressed, 3)} ms, plain text ${fmt(p50s.plain, 3)} ms: ${fmt(p50s.compressed / p50s.plain)}x (goal <= 1.2)`)
console.log(`  version page p50 (25 rows, any start), alike: compressed ${fmt(p50s.compressedPage, 3)} ms, plain text ${fmt(p50s.plainPage, 3)} ms: ${fmt(p50s.compressedPage / p50s.plainPage)}x`)
console.log(`  background conversion back: ${converted} rows in ${fmt(convertSeconds, 1)} s (${fmt(converted / convertSeconds, 0)} rows/s of work; the dispatcher does 200 a pass)`)
for (const team of Object.values(teams)) team.db.$client.close()
