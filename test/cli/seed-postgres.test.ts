/**
 * `bun run cli seed` with DATABASE_URL, as a real process against a fresh PostgreSQL database: the
 * same teams, users, memberships, content types, documents and revisions as the same file seeded
 * into a SQLite file; idempotent as there (no extra Published Version); a seed that fails partway
 * leaves the database as it was; two seeds at once both succeed and publish once. And push-index there.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { closeDb, openDb, pgHandle, type Db } from '../../db/client'
import { listRevisions } from '../../db/revisions'
import { seed } from '../../cli/seed'
import { testSeed } from '../helpers'
import { describePg, PG_TABLES, pgDatabase, type PgTestDatabase } from '../pg/harness'
import { plain } from '../db/pg/queries/twin'
import { root, runSeed, seedDir } from './seed-fixture'

const dir = seedDir()

/** testSeed() with a page tree (a child published with its parent), a product, a draft-only page. */
function richSeed() {
  const file = testSeed() as { teams: { id: string; workspaceId: string; documents?: Record<string, unknown>[]; users?: unknown[] }[] }
  file.teams[0]!.documents!.push(
    { id: 'pages/about', contentType: 'page', published: true, fields: { parent: 'pages/home' }, locales: { en: { title: 'About', slug: 'about' }, de: { title: 'Über', slug: 'ueber' } } },
    { id: 'products/lamp', contentType: 'product', published: true, fields: { sku: 'L-1' }, locales: { en: { name: 'Lamp' } } },
    { id: 'pages/later', contentType: 'page', published: false, fields: { parent: 'pages/home' }, locales: { en: { title: 'Later', slug: 'later' } } },
  )
  file.teams[1]!.documents = [{ id: 'pages/solo', contentType: 'page', published: true, fields: {}, locales: { en: { title: 'Solo' } } }]
  return file
}

/** Every row the seed writes, as both databases can be compared: write times (columns, stamps, activity entries) and change vectors aside. */
const QUERIES = {
  teams: 'SELECT id, workspace_id, locales, default_locale, fallbacks, content_index, index_generation, indexed_generation, features FROM teams ORDER BY id',
  users: 'SELECT id, token_hash FROM users ORDER BY id',
  memberships: 'SELECT team_id, user_id, capabilities FROM memberships ORDER BY team_id, user_id',
  contentTypes: 'SELECT team_id, name, collection, urls, definition FROM content_types ORDER BY team_id, name',
  documents: 'SELECT team_id, id, canonical_id, kind, collection, body, published, archived, deleted_at FROM documents ORDER BY team_id, id',
}
const timeless = (body: Record<string, unknown>) => JSON.parse(JSON.stringify(body).replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"'))

async function rowsOf(db: Db): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  for (const [name, query] of Object.entries(QUERIES)) {
    const rows = plain(db.engine === 'pg' ? await db.sql.unsafe(query) : db.$client.query(query).all() as Record<string, unknown>[])
    out[name] = name === 'documents' ? rows.map((r) => ({ ...r, body: timeless(r.body as Record<string, unknown>) })) : rows
  }
  const documents = out.documents as { team_id: string; id: string; kind: string }[]
  const revisions: Record<string, unknown> = {}
  for (const d of documents.filter((d) => d.kind === 'canonical')) {
    revisions[`${d.team_id} ${d.id}`] = (await listRevisions(db, d.team_id, d.id, 0, 100)).map((r) => ({ ordinal: r.ordinal, stamped: r.stamped, body: timeless(r.body) }))
  }
  return { ...out, revisions }
}

/** Every table of the PostgreSQL database whole, for "nothing changed". */
async function everyRow(sql: SQL): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  for (const table of PG_TABLES) out[table] = [...await sql.unsafe(`SELECT row_to_json(t)::text AS r FROM ${table} t ORDER BY 1`)].map((x: { r: string }) => x.r)
  return out
}

describePg('bun run cli seed on PostgreSQL', () => {
  const dbs: PgTestDatabase[] = []
  let d: PgTestDatabase
  let sql: SQL
  beforeAll(async () => {
    d = await pgDatabase({ migrate: false }) // the CLI migrates it
    dbs.push(d)
    sql = new SQL({ url: d.url, max: 2 })
  })
  afterAll(async () => {
    await sql?.close()
    await Promise.all(dbs.map((x) => x.drop()))
  })

  test('the same file gives the same rows and revisions as on SQLite, and a second run writes nothing', async () => {
    const file = join(dir, 'rich.json')
    writeFileSync(file, JSON.stringify(richSeed()))
    const path = join(dir, 'rich.db')
    const lite = runSeed(file, path)
    const pg = runSeed(file, join(dir, 'never.db'), { DATABASE_URL: d.url })
    expect({ code: pg.code, err: pg.err }).toEqual({ code: 0, err: expect.not.stringContaining('failed') })
    const answer = JSON.parse(pg.out)
    expect(answer).toEqual({ ok: true, databaseUrl: d.url, teams: 2, documents: 5, published: 4 })
    expect({ ...JSON.parse(lite.out), databasePath: undefined, databaseUrl: d.url }).toEqual(answer)

    const liteDb = openDb(path)
    const pgDb = pgHandle(sql)
    try {
      const pgRows = await rowsOf(pgDb)
      expect(pgRows).toEqual(await rowsOf(liteDb))
      expect(Object.values(pgRows.revisions as Record<string, unknown[]>).map((r) => r.length)).toEqual([1, 1, 0, 1, 1]) // acme: about, home, later, lamp; other: solo
      expect((pgRows.users as unknown[]).length).toBe(5) // four users and cli

      // Again on both: nothing written, no extra Published Version.
      const again = runSeed(file, join(dir, 'never.db'), { DATABASE_URL: d.url })
      expect(JSON.parse(again.out)).toMatchObject({ ok: true, teams: 2, documents: 0, published: 0 })
      expect(JSON.parse(runSeed(file, path).out)).toMatchObject({ documents: 0, published: 0 })
      expect(await rowsOf(pgDb)).toEqual(pgRows)
      expect(await rowsOf(pgDb)).toEqual(await rowsOf(liteDb))
    } finally {
      liteDb.$client.close()
    }
  }, 60_000)

  test('a seed that fails partway (a second team with an unknown content type) leaves every table as it was', async () => {
    const before = await everyRow(sql)
    expect(before.documents!.length).toBeGreaterThan(0) // seeded by the test above
    const broken = richSeed()
    broken.teams[0]!.workspaceId = 'changed'
    broken.teams[0]!.documents![0]!.locales = { en: { title: 'Home, changed', slug: '' } } // written and published before the failure
    broken.teams[1]!.users = [...broken.teams[1]!.users!, { id: 'u-new', token: 'tok-new-user-1', capabilities: ['EditContent'] }]
    broken.teams.push({ id: 'bad', workspaceId: 'w', locales: ['en'], defaultLocale: 'en', documents: [{ id: 'pages/x', contentType: 'nope', fields: {} }] } as never)
    const file = join(dir, 'broken.json')
    writeFileSync(file, JSON.stringify(broken))
    const run = runSeed(file, join(dir, 'never.db'), { DATABASE_URL: d.url })
    expect({ code: run.code, out: run.out }).toEqual({ code: 1, out: '' })
    expect(run.err).toContain('seed failed: Team bad, document pages/x: Unknown content type: nope.')
    expect(await everyRow(sql)).toEqual(before)
  }, 60_000)

  test('bun run cli push-index on PostgreSQL: a team must be named when there are two, then the definition is stored', async () => {
    const file = join(dir, 'index.json')
    writeFileSync(file, JSON.stringify({ fields: ['title'], b: 1 }))
    const run = (...args: string[]) => Bun.spawnSync(['bun', 'run', 'cli', 'push-index', file, ...args], { cwd: root, env: { ...process.env, DATABASE_PATH: join(dir, 'never.db'), DATABASE_URL: d.url } })
    const unnamed = run()
    expect({ code: unnamed.exitCode, out: unnamed.stdout.toString() }).toEqual({ code: 1, out: '' })
    expect(unnamed.stderr.toString()).toContain('push-index failed: name the team: the database holds 2 teams (acme, other)')
    const named = run('acme')
    expect({ code: named.exitCode, answer: JSON.parse(named.stdout.toString()) }).toEqual({ code: 0, answer: { ok: true, databaseUrl: d.url, indexGeneration: 1 } })
    const [team] = await sql`SELECT content_index::text AS definition, index_generation FROM teams WHERE id = 'acme'`
    expect(team).toEqual({ definition: '{"fields":["title"],"b":1}', index_generation: 1 })
  }, 60_000)

  test('two seeds at once on an empty database both succeed, and each document is published once', async () => {
    const empty = await pgDatabase()
    dbs.push(empty)
    const pools = [new SQL({ url: empty.url, max: 2 }), new SQL({ url: empty.url, max: 2 })]
    try {
      const [a, b] = await Promise.all(pools.map((pool) => seed(pgHandle(pool), null, richSeed())))
      expect([a, b].map((r) => r.published).sort()).toEqual([0, 4])
      const rows = await rowsOf(pgHandle(pools[0]!))
      expect(Object.values(rows.revisions as Record<string, unknown[]>).map((r) => r.length)).toEqual([1, 1, 0, 1, 1])
    } finally {
      await Promise.all(pools.map((pool) => closeDb(pgHandle(pool))))
    }
  }, 60_000)
})
