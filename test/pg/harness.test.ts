/**
 * test/pg/harness.ts: a PostgreSQL test file without TEST_DATABASE_URL is skipped with one printed
 * reason, except under CI=true, where it fails; with it, it runs. pgDatabase() makes a fresh,
 * migrated database and drop() removes it.
 */
import { expect, test } from 'bun:test'
import { SQL } from 'bun'
import { join } from 'node:path'
import { describePg, PG_MIGRATIONS, PG_TABLES, pgDatabase, publicTables, TEST_DATABASE_URL } from './harness'
import { MIGRATIONS_TABLE } from '../../db/pg/migrate'

const root = join(import.meta.dir, '../..')

function runFixture(env: Record<string, string | undefined>) {
  const { TEST_DATABASE_URL: _, CI: __, ...rest } = process.env
  const p = Bun.spawnSync(['bun', 'test', './test/pg/needs-pg-fixture.ts'], { cwd: root, env: { ...rest, ...env } as Record<string, string> })
  const output = p.stdout.toString() + p.stderr.toString()
  return { code: p.exitCode, output, counts: (['pass', 'skip', 'fail'] as const).map((k) => Number(new RegExp(`^ *(\\d+) ${k}$`, 'm').exec(output)?.[1] ?? 0)) }
}

test('without TEST_DATABASE_URL: skipped with the reason outside CI, failed under CI=true', () => {
  const outside = runFixture({})
  expect({ code: outside.code, counts: outside.counts }).toEqual({ code: 0, counts: [0, 1, 0] })
  expect(outside.output).toContain('PostgreSQL tests skipped: TEST_DATABASE_URL is not set')
  const ci = runFixture({ CI: 'true' })
  expect({ code: ci.code, counts: ci.counts }).toEqual({ code: 1, counts: [0, 0, 1] })
  expect(ci.output).toContain('needs PostgreSQL: TEST_DATABASE_URL is set (CI=true runs the PostgreSQL tests)')
}, 30_000)

describePg('with TEST_DATABASE_URL', () => {
  test('the PostgreSQL tests run, under CI too', () => {
    expect(runFixture({ TEST_DATABASE_URL, CI: 'true' }).counts).toEqual([1, 0, 0])
  }, 30_000)

  test('pgDatabase() makes a fresh migrated database; drop() removes it', async () => {
    const d = await pgDatabase()
    const own = new SQL({ url: d.url, max: 1 })
    const [applied] = await own.unsafe(`SELECT count(*)::int AS n FROM ${MIGRATIONS_TABLE}`)
    await own.close()
    expect({ applied: applied.n, tables: await publicTables(d.url) }).toEqual({ applied: PG_MIGRATIONS, tables: PG_TABLES })
    await d.drop()
    const admin = new SQL({ url: TEST_DATABASE_URL, max: 1 })
    const left = await admin.unsafe('SELECT datname FROM pg_database WHERE datname = $1', [d.name])
    await admin.close()
    expect([...left]).toEqual([])
  })
})
