/**
 * Which database the test context runs on (docs/getting-started.md "Tests"): SQLite unless
 * TEST_DIALECT=pg, which scripts/test.ts sets for its second pass. Tests SQLite is the nature of
 * (WAL, file modes, bun:sqlite locks) say so with `sqliteOnly`; tests that show the product
 * answering otherwise on PostgreSQL say so with `pgKnownGap`. Both print why on the PostgreSQL pass.
 */
import { describe, test } from 'bun:test'
import type { Db, PgHandle, SqliteDb } from '../db/client'

export type TestDialect = 'sqlite' | 'pg'

function dialectFromEnv(value: string | undefined): TestDialect {
  if (value === undefined || value === '' || value === 'sqlite') return 'sqlite'
  if (value === 'pg') return 'pg'
  throw new Error(`TEST_DIALECT=${value}: expected sqlite or pg`)
}

export const TEST_DIALECT: TestDialect = dialectFromEnv(process.env.TEST_DIALECT)
export const onPg = TEST_DIALECT === 'pg'

const said = new Set<string>()
function sayOnce(line: string) {
  if (said.has(line)) return
  said.add(line)
  console.log(line)
}

type Marked = { test: typeof test; describe: typeof describe }

/**
 * `test` and `describe` for what only SQLite has: as they are on SQLite; on the PostgreSQL pass
 * skipped, the reason in the name and printed once.
 */
export function sqliteOnly(reason: string): Marked {
  if (!onPg) return { test, describe }
  const why = `[SQLite only: ${reason}]`
  return {
    test: ((name: string, ...rest: any[]) => { sayOnce(`skipped on PostgreSQL: ${name} ${why}`); return (test.skip as any)(`${name} ${why}`, ...rest) }) as any,
    describe: ((name: string, ...rest: any[]) => { sayOnce(`skipped on PostgreSQL: ${name} ${why}`); return (describe.skip as any)(`${name} ${why}`, ...rest) }) as any,
  }
}

/**
 * `test` for something the product does not do on PostgreSQL yet (none today; kept so that a new
 * one is marked, not silently skipped): as it is on SQLite; on the PostgreSQL pass skipped, the
 * reason in the name.
 */
export function pgNotYet(reason: string): typeof test {
  if (!onPg) return test
  const why = `[not yet on PostgreSQL: ${reason}]`
  return ((name: string, ...rest: any[]) => { sayOnce(`skipped on PostgreSQL: ${name} ${why}`); return (test.skip as any)(`${name} ${why}`, ...rest) }) as any
}

/**
 * `test` for a behaviour the product gets wrong on PostgreSQL (a finding, to be listed in
 * docs/postgresql.md; none today): as it is on SQLite; on the PostgreSQL pass skipped, the gap in its name
 * and printed, so it shows in every run. (Not `test.failing`: a race that happens not to
 * happen would then fail the run.)
 */
export function pgKnownGap(reason: string): typeof test {
  if (!onPg) return test
  const why = `[PostgreSQL known gap: ${reason}]`
  return ((name: string, ...rest: any[]) => { sayOnce(`known gap on PostgreSQL: ${name} ${why}`); return (test.skip as any)(`${name} ${why}`, ...rest) }) as any
}

/** The SQLite database of a context on SQLite; throws on PostgreSQL (mark such a test `sqliteOnly`). */
export function sqliteOf(db: Db): SqliteDb {
  if (db.engine !== 'sqlite') throw new Error('this test reads the SQLite file directly: mark it sqliteOnly(reason) or use test/rows.ts')
  return db
}

/** The PostgreSQL handle of a context on PostgreSQL; throws on SQLite. */
export function pgOf(db: Db): PgHandle {
  if (db.engine !== 'pg') throw new Error('expected a PostgreSQL handle')
  return db
}
