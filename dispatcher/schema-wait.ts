/**
 * The compiled dispatcher binary carries no migration files (they are read from disk by
 * drizzle's migrator), so it never migrates: it waits until the api, which does, has brought
 * the shared database up to the migrations it was built with (style.md rule 5 allows either).
 */
import type { Db } from '../db/client'
import journal from '../db/migrations/meta/_journal.json'

/** True when this code runs from a `bun build --compile` binary (Bun's embedded file system). */
export const isCompiled = () => import.meta.dir.startsWith('/$bunfs') || import.meta.dir.includes('~BUN')

function applied(db: Db): number {
  try {
    return (db.$client.query('SELECT COUNT(*) AS n FROM __drizzle_migrations').get() as { n: number }).n
  } catch {
    return 0 // table not there yet
  }
}

/** Resolves once every migration this build knows is applied; logs while it waits. */
export async function waitForSchema(db: Db, log: { info: (o: object, m: string) => void }, pollMs = 500): Promise<void> {
  const wanted = journal.entries.length
  let logged = false
  while (applied(db) < wanted) {
    if (!logged) log.info({ wanted, applied: applied(db) }, 'waiting for the api to migrate the database')
    logged = true
    await Bun.sleep(pollMs)
  }
}
