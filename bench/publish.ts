/**
 * Publishes per second for a batch of documents, against bare SQLite transactions running
 * the very same statements, measured in the same run. Goal: ratio >= 0.5.
 *
 * The baseline is built by recording every statement (SQL and parameters) that each publish
 * runs on a scratch copy of the database, then replaying them with bun:sqlite alone, one
 * immediate transaction per document, on a second identical copy. The ratio is therefore
 * what our layers (drizzle's transaction, document rules, JSON, metrics) cost on top of the
 * SQLite work a publish needs. Real and bare run in alternating blocks of 100 publishes
 * (bench/alternate.ts), so a drift in a shared machine's load hits both alike. A second, generic
 * baseline (the same number of simple key-value statements, run after them) is printed for context.
 *
 * With DATABASE_URL set, the same publishes also run on PostgreSQL (a fresh database per copy on
 * that server, dropped at the end), against a bare Bun.sql transaction of the same statements
 * (bench/publish-pg.ts); BENCH_STATEMENTS=1 prints the statements of one publish there.
 *
 *   bun bench/publish.ts [documents=2000]
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/postgres bun bench/publish.ts [documents=2000]
 */
import type { Database } from 'bun:sqlite'
import { openDb, type Db as AnyDb, type SqliteDb as Db } from '../db/client'
import { createMetrics } from '../core/metrics'
import { publishCounted } from '../core/publish/service'
import { writeDocument } from '../core/content/service'
import { seed } from '../cli/seed'
import { fmt, tempDbPath } from './util'
import { BENCH_DATABASE_URL } from './pg-db'
import { maskUrl } from '../db/pg/url'
import { publishOnPostgres } from './publish-pg'
import { alternatingBlocks } from './alternate'

const N = Number(process.argv[2] ?? 2000)
const locales = { en: { title: 'Title', slug: 'slug' }, de: { title: 'Titel', slug: 'slug-de' }, fr: { title: 'Titre', slug: 'slug-fr' } }

/** A database with the same team and N drafts; identical across calls but for the node id. */
async function prepare(name: string, path = tempDbPath(name)): Promise<Db> {
  const db = openDb(path)
  await seed(db, null, {
    teams: [{
      id: 't', workspaceId: 'w', locales: ['en', 'de', 'fr'], defaultLocale: 'en',
      contentTypes: [{ name: 'page', collection: 'pages', urls: true, fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }] }],
      users: [{ id: 'u', token: 'bench-token', capabilities: ['EditContent', 'ChangeLiveContent'] }],
    }],
  })
  for (let i = 0; i < N; i++) {
    await writeDocument(db, { teamId: 't', userId: 'u', doc: { id: `pages/p${i}/draft`, contentType: 'page', fields: { parent: null }, locales } })
  }
  db.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  return db
}

const publish = async (db: AnyDb, i: number, metrics: ReturnType<typeof createMetrics> | null) =>
  await publishCounted(db, metrics, { teamId: 't', id: `pages/p${i}`, stampUserId: 'u', actorUserId: 'u', source: 'api' })

// 1. Record the statements of every publish on a scratch copy.
type Stmt = { sql: string; params: unknown[]; method: string }
const scratch = await prepare('publish-record')
const recorded: Stmt[][] = []
let current: Stmt[] = []
const client = scratch.$client as unknown as Record<string, (...a: unknown[]) => unknown>
for (const name of ['query', 'prepare'] as const) {
  const original = client[name]!.bind(scratch.$client)
  client[name] = (sql: unknown) => {
    const stmt = original(sql) as Record<string, (...a: unknown[]) => unknown>
    return new Proxy(stmt, {
      get(target, prop: string) {
        const value = target[prop]
        if (typeof value !== 'function' || !['run', 'get', 'all', 'values'].includes(prop)) return value
        return (...params: unknown[]) => {
          current.push({ sql: sql as string, params, method: prop })
          return value.apply(target, params)
        }
      },
    })
  }
}
for (let i = 0; i < N; i++) {
  current = []
  await publish(scratch, i, null)
  recorded.push(current)
}
const statements = recorded[0]!.length

// 2. The real publishes on a fresh copy and the recorded statements replayed bare on another, one
// immediate transaction per publish, in alternating blocks (bench/alternate.ts), as on PostgreSQL.
const db = await prepare('publish-real')
const metrics = createMetrics()
const bare = (await prepare('publish-bare')).$client as Database
const replay = bare.transaction((stmts: Stmt[]) => {
  for (const s of stmts) (bare.query(s.sql) as unknown as Record<string, (...a: unknown[]) => unknown>)[s.method]!(...s.params)
})
const ms = await alternatingBlocks(N, {
  real: async (from, to) => { for (let i = from; i < to; i++) await publish(db, i, metrics) },
  bare: (from, to) => { for (let i = from; i < to; i++) replay.immediate(recorded[i]!) },
})
const publishRate = N / (ms.real / 1000)
const bareRate = N / (ms.bare / 1000)

// 3. The bare replay must have written what the real publishes did: every document published once, one version each.
const counts = (c: Database) => c.query('SELECT (SELECT count(*) FROM documents WHERE published) AS published, (SELECT count(*) FROM revisions) AS revisions').get() as { published: number; revisions: number }
const [a, b] = [counts(db.$client), counts(bare)]
if (a.published !== b.published || a.revisions !== b.revisions || a.published !== N) throw new Error(`the bare replay wrote other rows: ${JSON.stringify({ real: a, bare: b })}`)

// 4. Context: the same number of simple key-value statements per transaction.
bare.exec('CREATE TABLE bench_kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)')
const value = JSON.stringify({ id: 'pages/x', contentType: 'page', fields: { parent: null }, locales })
const kv = bare.transaction((i: number) => {
  for (let s = 0; s < statements; s++) {
    if (s % 2 === 0) bare.query('SELECT v FROM bench_kv WHERE k = ?').get(`k${i}-${s}`)
    else bare.query('INSERT INTO bench_kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v').run(`k${i}-${s}`, value)
  }
})
const t0 = performance.now()
for (let i = 0; i < N; i++) kv.immediate(i)
const kvRate = N / ((performance.now() - t0) / 1000)

console.log('SQLite:')
console.log(`documents published:               ${N}`)
console.log(`statements per publish:            ${statements}`)
console.log(`publishes per second:              ${fmt(publishRate, 0)}`)
console.log(`bare replay of the same statements: ${fmt(bareRate, 0)} transactions/s`)
console.log(`ratio publish / bare replay:       ${fmt(publishRate / bareRate)}  (goal >= 0.5)`)
console.log(`context: ${statements} key-value statements: ${fmt(kvRate, 0)} transactions/s (ratio ${fmt(publishRate / kvRate)})`)

if (BENCH_DATABASE_URL) {
  // The same drafts, written to SQLite and copied to a fresh PostgreSQL database per copy.
  const source = tempDbPath('publish-pg-source')
  ;(await prepare('publish-pg-source', source)).$client.close()
  const pg = await publishOnPostgres(BENCH_DATABASE_URL, source, N, publish)
  if (process.env.BENCH_STATEMENTS) for (const [i, text] of pg.texts.entries()) console.log(`  ${i + 1}. ${text.replace(/\s+/g, ' ')}`)
  console.log(`PostgreSQL (${maskUrl(BENCH_DATABASE_URL)}):`)
  console.log(`statements per publish:            ${pg.statements} (and BEGIN, COMMIT)`)
  console.log(`publishes per second:              ${fmt(pg.publishRate, 0)}  (${fmt(pg.publishRate / publishRate)} x SQLite)`)
  console.log(`bare Bun.sql transaction of the same statements: ${fmt(pg.bareRate, 0)} transactions/s`)
  console.log(`ratio publish / bare:              ${fmt(pg.publishRate / pg.bareRate)}  (goal >= 0.5)`)
}
