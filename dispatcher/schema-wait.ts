/**
 * The compiled dispatcher binary carries no migration files (they are read from disk by
 * drizzle's migrator), so it never migrates: it waits until the api, which does, has brought
 * the shared database up to the migrations it was built with (style.md rule 5 allows either).
 */
import type { Db } from '../db/client'
import journal from '../db/migrations/meta/_journal.json'
import pgJournal from '../db/migrations/pg/meta/_journal.json'

/** True when this code runs from a `bun build --compile` binary (Bun's embedded file system). */
export const isCompiled = () => import.meta.dir.startsWith('/$bunfs') || import.meta.dir.includes('~BUN')

/** How many migrations the database has applied (drizzle's bookkeeping table); 0 before the first. */
async function applied(db: Db): Promise<number> {
  try {
    if (db.engine === 'pg') return (await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`)[0]!.n
    return (db.$client.query('SELECT COUNT(*) AS n FROM __drizzle_migrations').get() as { n: number }).n
  } catch {
    return 0 // table (or, on PostgreSQL, its schema) not there yet
  }
}

export interface SchemaWaitOptions {
  /**
   * The database, named in the warnings (a DATABASE_PATH or DATABASE_URL that differs from the
   * api's is the usual cause): `{ databasePath }` on SQLite, `{ databaseUrl }` (masked) on PostgreSQL.
   */
  where: { databasePath: string } | { databaseUrl: string }
  pollMs?: number
  /** Still waiting after this long: a warning, then one every `warnEveryMs`. */
  warnAfterMs?: number
  warnEveryMs?: number
}

type WaitLog = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void }

/**
 * Resolves once every migration this build knows is applied (and warns when the database has more:
 * a binary older than the api). Logs once when it starts waiting;
 * still waiting after `warnAfterMs` (30 s), it warns, and again every `warnEveryMs` (5 min): an
 * api that never comes, or a `DATABASE_PATH` that differs from the api's, is not an endless quiet wait.
 */
export async function waitForSchema(db: Db, log: WaitLog, opts: SchemaWaitOptions): Promise<void> {
  const { where, pollMs = 500, warnAfterMs = 30_000, warnEveryMs = 300_000 } = opts
  const wanted = (db.engine === 'pg' ? pgJournal : journal).entries.length
  const setting = 'databaseUrl' in where ? 'DATABASE_URL' : 'DATABASE_PATH'
  const started = Date.now()
  let nextWarnAt = started + warnAfterMs
  let found = await applied(db)
  for (let logged = false; found < wanted; found = await applied(db)) {
    if (!logged) log.info({ wanted, applied: found }, 'waiting for the api to migrate the database')
    logged = true
    if (Date.now() >= nextWarnAt) {
      log.warn({ wanted, applied: found, ...where, waitedMs: Date.now() - started },
        `still waiting for the api to migrate the database: is the api running, with the same ${setting}?`)
      nextWarnAt = Date.now() + warnEveryMs
    }
    await Bun.sleep(pollMs)
  }
  // The api was upgraded (and migrated the database) but this binary was not rebuilt: it may not
  // know what the newer schema holds. Said once, loudly; deliveries go on meanwhile.
  if (found > wanted) {
    log.warn({ wanted, applied: found, ...where },
      'the database was migrated by a newer api than this dispatcher was built from: rebuild and reinstall the dispatcher binary (docs/operations.md#upgrading)')
  }
}
