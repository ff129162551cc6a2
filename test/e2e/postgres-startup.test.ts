/**
 * The api, the dispatcher, the CLI and `bun start` with DATABASE_URL set, as real processes
 * against the real server: a URL that cannot be one is a configuration error (78); a server,
 * login or database that cannot be used is one line naming DATABASE_URL and exit 1; a good URL
 * is migrated, then the api and the dispatcher run on it and the CLI seeds it (`bun start` on
 * PostgreSQL: test/e2e/start-postgres.test.ts). No output ever holds the password, and no SQLite
 * file is made on the way.
 */
import { afterAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { collectOutput, makeTestDir, waitFor } from '../helpers'
import { describePg, PG_MIGRATIONS, PG_TABLES, pgDatabase, publicTables, TEST_DATABASE_URL, withDatabase, type PgTestDatabase } from '../pg/harness'
import { MIGRATIONS_TABLE } from '../../db/pg/migrate'

const root = join(import.meta.dir, '../..')
const dir = makeTestDir('pg-startup-test-')
const databasePath = join(dir, 'never', 'content.db')
const PASSWORD = 'pw-never-shown-4242'
const dbs: PgTestDatabase[] = []
afterAll(async () => {
  await Promise.all(dbs.map((d) => d.drop()))
  rmSync(dir, { recursive: true, force: true })
})

const PROCESSES: [string, string[]][] = [
  ['api', ['api/main.ts']],
  ['dispatcher', ['dispatcher/main.ts']],
  ['cli', ['cli/main.ts', 'seed', join(root, 'db/seed/demo.json')]],
  ['start', ['scripts/start.ts']],
]

async function run(argv: string[], DATABASE_URL: string) {
  const env = { ...process.env, LOG_LEVEL: 'warn', PORT: '0', DATABASE_PATH: databasePath, DATABASE_URL }
  const proc = Bun.spawn(['bun', ...argv], { cwd: root, env, stdout: 'pipe', stderr: 'pipe' })
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  return { code, output: stdout + stderr, lines: stderr.trim().split('\n') }
}

/** TEST_DATABASE_URL's server with `user`, `PASSWORD`, `port` and `database` put in. */
function urlWith(parts: { user?: string; port?: string; database?: string }): string {
  const u = new URL(withDatabase(TEST_DATABASE_URL!, parts.database ?? new URL(TEST_DATABASE_URL!).pathname.slice(1)))
  if (parts.user) u.username = parts.user
  if (parts.port) u.port = parts.port
  u.password = PASSWORD
  return u.href
}
const masked = (url: string) => url.replace(PASSWORD, '***')

test('a DATABASE_URL that is not a postgres URL stops every process: one line naming it, exit 78, password masked', async () => {
  const url = `mysql://app:${PASSWORD}@127.0.0.1:3306/content`
  for (const [name, argv] of PROCESSES) {
    const { code, output, lines } = await run(argv, url)
    expect({ name, code, lines }).toEqual({ name, code: 78, lines: [expect.stringContaining(`${name}: configuration error: DATABASE_URL must be a postgres:// or postgresql:// URL`)] })
    expect(lines[0]).toContain('mysql://app:***@127.0.0.1')
    expect(output).not.toContain(PASSWORD)
  }
  expect(existsSync(databasePath)).toBe(false)
}, 60_000)

describePg('PostgreSQL at startup', () => {
  test('a server that does not answer, a refused login, a missing database: one line naming DATABASE_URL, exit 1', async () => {
    const cases: [string, string, string][] = [
      ['nothing listens', urlWith({ port: '1' }), 'cannot reach a PostgreSQL server at 127.0.0.1:1: nothing accepts connections there (is it running? is the host name right?)'],
      ['unknown role', urlWith({ user: 'no_such_role_here' }), 'the server refused the login: role "no_such_role_here" does not exist'],
      ['missing database', urlWith({ database: 'no_such_database_here' }), 'database "no_such_database_here" does not exist: create it (createdb) or name an existing one'],
    ]
    for (const [name, argv] of PROCESSES) {
      for (const [what, url, reason] of cases) {
        const { code, output, lines } = await run(argv, url)
        expect({ name, what, code, lines }).toEqual({ name, what, code: 1, lines: [`${name}: cannot use the PostgreSQL database at DATABASE_URL=${masked(url)}: ${reason}`] })
        expect(output).not.toContain(PASSWORD)
      }
    }
    expect(existsSync(databasePath)).toBe(false)
  }, 120_000)

  test('a migration that fails (a database where every transaction is read-only): one line, exit 1', async () => {
    const d = await pgDatabase({ migrate: false })
    dbs.push(d)
    const sql = new SQL({ url: d.url, max: 1 })
    await sql.unsafe(`ALTER DATABASE ${d.name} SET default_transaction_read_only = on`)
    await sql.close()
    const url = urlWith({ database: d.name })
    const { code, output, lines } = await run(['api/main.ts'], url)
    expect({ code, lines }).toEqual({ code: 1, lines: [`api: cannot use the PostgreSQL database at DATABASE_URL=${masked(url)}: migrating failed: cannot execute CREATE SCHEMA in a read-only transaction`] })
    expect(output).not.toContain(PASSWORD)
  }, 60_000)

  test('a good URL: the CLI migrates the database and seeds it (exit 0), its answer naming the URL without the password', async () => {
    const d = await pgDatabase({ migrate: false })
    dbs.push(d)
    const url = new URL(d.url)
    url.password = PASSWORD // trust auth: the server ignores it, the output must not show it
    const env = { ...process.env, LOG_LEVEL: 'warn', DATABASE_PATH: databasePath, DATABASE_URL: url.href }
    const proc = Bun.spawn(['bun', 'cli/main.ts', 'seed', join(root, 'db/seed/demo.json')], { cwd: root, env, stdout: 'pipe', stderr: 'pipe' })
    const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    expect(JSON.parse(stdout)).toEqual({ ok: true, databaseUrl: masked(url.href), teams: 1, documents: 3, published: 3 })
    expect(stdout).not.toContain(PASSWORD)
    const sql = new SQL({ url: d.url, max: 1 })
    const [applied] = await sql.unsafe(`SELECT count(*)::int AS n FROM ${MIGRATIONS_TABLE}`)
    const [teams] = await sql.unsafe(`SELECT count(*)::int AS n FROM teams`)
    await sql.close()
    expect({ applied: applied.n, teams: teams.n, tables: await publicTables(d.url) }).toEqual({ applied: PG_MIGRATIONS, teams: 1, tables: PG_TABLES })
    expect(existsSync(databasePath)).toBe(false)
  }, 60_000)

  test('a good URL: the dispatcher migrates it and runs (no 78); SIGTERM stops it with 0', async () => {
    const d = await pgDatabase({ migrate: false })
    dbs.push(d)
    const url = new URL(d.url)
    url.password = PASSWORD
    const env = { ...process.env, LOG_LEVEL: 'info', DATABASE_PATH: databasePath, DATABASE_URL: url.href }
    const proc = Bun.spawn(['bun', 'dispatcher/main.ts'], { cwd: root, env, stdout: 'pipe', stderr: 'pipe' })
    const out = collectOutput(proc.stdout)
    const err = collectOutput(proc.stderr)
    await waitFor(() => out.text.includes('dispatcher started'), 20_000, 'dispatcher started')
    proc.kill('SIGTERM')
    expect(await proc.exited).toBe(0)
    await Promise.all([out.done, err.done])
    expect(out.text + err.text).not.toContain(PASSWORD)
    expect(await publicTables(d.url)).toEqual(PG_TABLES)
    expect(existsSync(databasePath)).toBe(false)
  }, 60_000)
})
