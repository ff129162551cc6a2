/**
 * PostgreSQL for tests: each test file gets a database of its own on the server TEST_DATABASE_URL
 * names (created, migrated, dropped in afterAll), so files stay independent and run in any order.
 * Without TEST_DATABASE_URL the PostgreSQL tests are skipped with one printed reason, except under
 * CI=true, where a skipped PostgreSQL run would pass unseen: there they fail instead.
 */
import { describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { pgClientOptions } from '../../db/pg/client'
import { migratePg } from '../../db/pg/migrate'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined
const underCi = process.env.CI === 'true'
let saidSkipped = false

/**
 * `describe` for tests that need a PostgreSQL server: run when TEST_DATABASE_URL is set; skipped
 * (with the reason printed once per run) when not; under CI=true, one failing test instead.
 */
export function describePg(name: string, body: () => void): void {
  if (TEST_DATABASE_URL) return describe(name, body)
  if (underCi) {
    test(`${name}: TEST_DATABASE_URL is set (CI=true runs the PostgreSQL tests)`, () => {
      expect({ TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? null }).toEqual({ TEST_DATABASE_URL: expect.any(String) })
    })
    return
  }
  if (!saidSkipped) {
    console.log('PostgreSQL tests skipped: TEST_DATABASE_URL is not set (e.g. TEST_DATABASE_URL=postgres://root@127.0.0.1:5432/test)')
    saidSkipped = true
  }
  describe.skip(name, body)
}

/** `url` with its database replaced by `name`. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${encodeURIComponent(name)}`
  return u.href
}

export interface PgTestDatabase {
  /** The new database's URL (TEST_DATABASE_URL's server and login). */
  url: string
  name: string
  /** Drops the database, ending any connection still open on it. */
  drop: () => Promise<void>
}

/** A fresh database `t_<random>` on TEST_DATABASE_URL's server, migrated unless `migrate: false`. */
export async function pgDatabase(opts: { migrate?: boolean } = {}): Promise<PgTestDatabase> {
  if (!TEST_DATABASE_URL) throw new Error('pgDatabase() needs TEST_DATABASE_URL (use describePg)')
  const name = `t_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
  await admin((sql) => sql.unsafe(`CREATE DATABASE ${name}`))
  const url = withDatabase(TEST_DATABASE_URL, name)
  if (opts.migrate !== false) await migratePg(url, { processName: 'test' })
  return { url, name, drop: () => admin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) }
}

/** Runs `fn` on one connection to TEST_DATABASE_URL's own database (CREATE/DROP DATABASE cannot run on the target). */
async function admin(fn: (sql: SQL) => Promise<unknown>): Promise<void> {
  const sql = new SQL(pgClientOptions(TEST_DATABASE_URL!, { processName: 'test admin', poolSize: 1 }))
  try {
    await fn(sql)
  } finally {
    await sql.close()
  }
}
