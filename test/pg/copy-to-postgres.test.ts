/**
 * `bun run cli copy-to-postgres` (docs/postgresql.md "Copying a SQLite database"), round trip on
 * the real server: a SQLite database with rows in every table (written by the real api and
 * dispatcher, test/pg/copy-seed.ts) copied by the real CLI process, then every table compared
 * row by row, revision body bytes included. Needs TEST_DATABASE_URL; skipped, saying so, without it.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { getTableName, is } from 'drizzle-orm'
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import * as schema from '../../db/schema'
import { decodeBody, decodeStored, keyframeBytes } from '../../db/revision-body'
import { seedEveryTable } from './copy-seed'
import { describePg, pgDatabase, TEST_DATABASE_URL, type PgTestDatabase } from './harness'

const root = join(import.meta.dir, '../..')
const PASSWORD = 's3cret-never-printed'
/** The test server's host:port, for a login it refuses. */
const server = TEST_DATABASE_URL ? new URL(TEST_DATABASE_URL).host : 'localhost'
const tables = Object.values(schema).filter((v) => is(v, SQLiteTable)) as SQLiteTable[]

/** The real command, as `bun run cli` runs it (bun run itself would echo a `--to` URL, password and all). */
function runCopy(env: Record<string, string>, args: string[] = []) {
  const proc = Bun.spawnSync(['bun', 'cli/main.ts', 'copy-to-postgres', ...args], { cwd: root, env: { ...process.env, ...env } })
  return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() }
}

const hex = (bytes: Uint8Array) => `\\x${Buffer.from(bytes).toString('hex')}`

/** A SQLite value as PostgreSQL's `::text` spells the same value (0/1 flags as booleans, blobs as hex). */
function liteText(value: unknown, flag: boolean): string | null {
  if (value === null) return null
  if (flag) return value === 1n ? 'true' : value === 0n ? 'false' : `not a flag: ${value}`
  if (value instanceof Uint8Array) return hex(value)
  return String(value)
}

/** A new, empty, unmigrated database (the command migrates it), its URL carrying a password the trust-auth server ignores. */
async function emptyTarget(): Promise<PgTestDatabase> {
  const db = await pgDatabase({ migrate: false })
  const url = new URL(db.url)
  url.password = PASSWORD
  return { ...db, url: url.href }
}

describePg('copy-to-postgres', () => {
  let source: { path: string; dir: string }
  let target: PgTestDatabase
  let pg: SQL
  let lite: Database
  let fileBefore: Buffer
  let copy: ReturnType<typeof runCopy>

  beforeAll(async () => {
    source = await seedEveryTable()
    fileBefore = readFileSync(source.path)
    expect(existsSync(`${source.path}-wal`)).toBe(false) // all of it in the file being compared
    target = await emptyTarget()
    copy = runCopy({ DATABASE_PATH: source.path, DATABASE_URL: target.url, LOG_LEVEL: 'silent' })
    pg = new SQL({ url: target.url, max: 1 })
    lite = new Database(source.path, { readonly: true, safeIntegers: true })
  })
  afterAll(async () => {
    lite?.close()
    await pg?.close()
    await target?.drop()
    if (source) rmSync(source.dir, { recursive: true, force: true })
  })

  const count = (table: string) => Number(lite.query<{ n: bigint }, []>(`SELECT count(*) AS n FROM "${table}"`).get()!.n)

  test('the seed wrote rows in every table of db/schema.ts (else the round trip proves nothing for that table)', () => {
    const empty = tables.map(getTableName).filter((t) => count(t) === 0)
    expect(empty).toEqual([])
  })

  test('exit 0; per-table counts equal to the source; a final line with the masked URL', () => {
    expect({ code: copy.code, err: copy.err }).toEqual({ code: 0, err: '' })
    const lines = copy.out.trimEnd().split('\n')
    const counts = Object.fromEntries(lines.slice(0, -1).map((l) => l.trim().split(/\s+/)).map(([t, n]) => [t, Number(n)]))
    expect(counts).toEqual(Object.fromEntries(tables.map((t) => [getTableName(t), count(getTableName(t))])))
    const total = Object.values(counts).reduce((a, b) => a + b, 0)
    expect(lines.at(-1)).toMatch(new RegExp(`^copied ${total} rows of ${tables.length} tables from .+ to postgres://[^ ]*:\\*\\*\\*@[^ ]+ in \\d+\\.\\d s$`))
    expect(copy.out).not.toContain(PASSWORD)
  })

  test.each(tables.map((t) => [getTableName(t), t] as const))('%s: every row, every column, the same values', async (name, table) => {
    const columns = getTableConfig(table).columns
    const flags = new Set(columns.filter((c) => c.columnType === 'SQLiteBoolean').map((c) => c.name))
    const fromLite = lite.query<Record<string, unknown>, []>(`SELECT * FROM "${name}"`).all()
      .map((row) => JSON.stringify(columns.map((c) => (name === 'revisions' && c.name === 'body' ? 'body' : liteText(row[c.name], flags.has(c.name))))))
    const fromPg = (await pg.unsafe(`SELECT ${columns.map((c) => `"${c.name}"::text`).join(', ')} FROM "${name}"`).values() as (string | null)[][])
      .map((row) => JSON.stringify(row.map((v, i) => (name === 'revisions' && columns[i]!.name === 'body' ? 'body' : v))))
    expect(fromPg.length).toBeGreaterThan(0)
    expect(fromPg.sort()).toEqual(fromLite.sort())
  })

  test('revision bodies: a blob is the same bytes; a plain-text row is encoded and reads back as the same text', async () => {
    const liteRows = lite.query<{ seq: bigint; body: string | Uint8Array }, []>('SELECT seq, body FROM revisions ORDER BY seq').all()
    const pgRows = new Map<string, Uint8Array>((await pg.unsafe('SELECT seq::text AS seq, body FROM revisions')).map((r: { seq: string; body: Uint8Array }) => [r.seq, r.body]))
    const pgText = (body: Uint8Array) => decodeBody(body, (seq) => keyframeBytes(pgRows.get(String(seq))!))
    let texts = 0
    for (const row of liteRows) {
      const copied = pgRows.get(String(row.seq))!
      if (typeof row.body === 'string') {
        texts++
        expect(copied[0]).toBe(1) // a whole encoded body (db/revision-body.ts), not a delta
      } else {
        expect(hex(copied)).toBe(hex(row.body))
      }
      expect(pgText(copied)).toBe(decodeStored(lite, row.body))
    }
    expect(texts).toBe(2)
    expect(pgRows.size).toBe(liteRows.length)
  })

  test('identity sequences continue past the copied rows and SQLite\'s own high-water marks', async () => {
    const marks = new Map(lite.query<{ name: string; seq: bigint }, []>('SELECT name, seq FROM sqlite_sequence').all().map((r) => [r.name, r.seq]))
    // The seed deleted the newest outbox rows (with their webhook): the mark is past the largest seq left.
    expect(marks.get('outbox')).toBeGreaterThan(lite.query<{ m: bigint }, []>('SELECT max(seq) AS m FROM outbox').get()!.m)
    for (const [table, column] of [['revisions', 'seq'], ['outbox', 'seq'], ['delivery_attempts', 'id'], ['site_changes', 'id']] as const) {
      const [{ next }] = await pg.unsafe(`SELECT nextval(pg_get_serial_sequence('${table}', '${column}'))::text AS next`)
      const [{ max }] = await pg.unsafe(`SELECT max(${column})::text AS max FROM ${table}`)
      expect(BigInt(next)).toBe((marks.get(table) ?? 0n) > BigInt(max) ? marks.get(table)! + 1n : BigInt(max) + 1n)
    }
  })

  test('the source file is unchanged, byte for byte', () => {
    expect(Bun.hash(readFileSync(source.path))).toBe(Bun.hash(fileBefore))
  })

  test('a second copy into the same database refuses in one line, and changes nothing', async () => {
    const before = await pg.unsafe('SELECT (SELECT count(*) FROM documents)::int AS d, (SELECT count(*) FROM revisions)::int AS r')
    const again = runCopy({ DATABASE_PATH: source.path, DATABASE_URL: target.url })
    expect(again.code).toBe(1)
    expect(again.out).toBe('')
    expect(again.err).toMatch(/^copy-to-postgres: refused, nothing was copied to postgres:\/\/[^ ]*\*\*\*@[^ ]+: the target already holds 2 teams: copy only into an empty, migrated database\n$/)
    expect(again.err).not.toContain(PASSWORD)
    expect(await pg.unsafe('SELECT (SELECT count(*) FROM documents)::int AS d, (SELECT count(*) FROM revisions)::int AS r')).toEqual(before)
  })

  test.each([
    [`postgres://someone:${PASSWORD}@127.0.0.1:1/nowhere`, 'cannot connect to postgres://someone:***@127.0.0.1:1/nowhere: cannot reach a PostgreSQL server at 127.0.0.1:1: nothing accepts connections there (is it running? is the host name right?)'],
    [`postgres://no_such_role:${PASSWORD}@${server}/postgres`, `cannot connect to postgres://no_such_role:***@${server}/postgres: the server refused the login: role "no_such_role" does not exist`],
    [`mysql://someone:${PASSWORD}@127.0.0.1/content`, 'the target mysql://someone:***@127.0.0.1/content cannot be used: its scheme is "mysql" (a postgres:// or postgresql:// URL)'],
  ])('a wrong URL (%s): one line naming it masked, exit 1', (url, line) => {
    const res = runCopy({ DATABASE_PATH: source.path }, ['--to', url])
    expect(res).toEqual({ code: 1, out: '', err: `copy-to-postgres: ${line}\n` })
  })

  test('a SQLite table neither schema knows refuses the copy, naming the table, before anything is written', async () => {
    const odd = join(source.dir, 'odd.db')
    copyFileSync(source.path, odd)
    const db = new Database(odd)
    db.exec('CREATE TABLE audit_trail (id INTEGER PRIMARY KEY, what TEXT)')
    db.close()
    const other = await emptyTarget()
    try {
      const res = runCopy({}, ['--from', odd, '--to', other.url])
      expect(res.code).toBe(1)
      expect(res.err).toMatch(/^copy-to-postgres: refused, nothing was copied to .*: the SQLite table audit_trail has no copier: db\/schema.ts does not declare it\n$/)
    } finally {
      await other.drop()
    }
  })

  test('a value PostgreSQL cannot hold, met partway through: one line naming its row, and nothing copied (one transaction)', async () => {
    const odd = join(source.dir, 'nul.db')
    copyFileSync(source.path, odd)
    const db = new Database(odd)
    const { id } = db.query<{ id: number }, []>('SELECT max(id) AS id FROM delivery_attempts').get()!
    db.query('UPDATE delivery_attempts SET response_body = ? WHERE id = ?').run('bin\u0000ary', id)
    db.close(true)
    const other = await emptyTarget()
    const check = new SQL({ url: other.url, max: 1 })
    try {
      const res = runCopy({}, ['--from', odd, '--to', other.url])
      expect(res.code).toBe(1)
      expect(res.err).toMatch(new RegExp(`^copy-to-postgres: refused, nothing was copied to [^ ]+: delivery_attempts.response_body of row ${id}: text with a NUL character, which PostgreSQL text cannot hold\n$`))
      // Tables before delivery_attempts in the copy's order were written, then rolled back.
      expect(await check.unsafe('SELECT (SELECT count(*) FROM teams)::int AS teams, (SELECT count(*) FROM content_types)::int AS types')).toEqual([{ teams: 0, types: 0 }])
    } finally {
      await check.close()
      await other.drop()
    }
  })
})
