/**
 * Applies db/migrations/pg under a PostgreSQL advisory lock. drizzle's `migrate()` creates its
 * table with `CREATE ... IF NOT EXISTS` (two sessions at once can both fail on it) and reads the
 * last applied migration outside its transaction (two sessions can both apply the next one), so
 * every process that migrates takes one session-level lock first: the api, dispatchers and CLI of
 * any number of machines may start at once, and each migration is applied once. The server drops
 * the lock with the session if a process dies.
 */
import { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sql'
import { migrate } from 'drizzle-orm/bun-sql/migrator'
import { join } from 'node:path'
import { pgClientOptions, type PgOptions } from './client'

export const pgMigrationsFolder = join(import.meta.dir, '../migrations/pg')

/**
 * The one key the migration lock is taken on (the ASCII of "content"), in the single-bigint key
 * space; per-row or per-team locks use the two-integer form, which never collides with it.
 */
export const MIGRATION_LOCK_KEY = 0x636f6e74656e74n

/** Where drizzle records what it applied: one row per migration file, with its hash. */
export const MIGRATIONS_TABLE = 'drizzle.__drizzle_migrations'

/**
 * Applies pending migrations to the database at `url` on a connection of its own, which holds
 * `pg_advisory_lock(MIGRATION_LOCK_KEY)` throughout and gives it back in `finally`. No statement
 * timeout applies on it: a migration that rebuilds a large index may take long, and a process
 * waiting for another's migration must wait for all of it. `onWait` is called once when another
 * process holds the lock.
 */
export async function migratePg(url: string, opts: PgOptions & { onWait?: () => void }): Promise<void> {
  const client = new SQL(pgClientOptions(url, { ...opts, processName: `${opts.processName} migrate`, poolSize: 1, statementTimeoutMs: 0 }))
  try {
    const conn = await client.reserve()
    try {
      const [first] = await conn.unsafe(`SELECT pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) AS locked`)
      if (!first.locked) {
        opts.onWait?.()
        await conn.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`)
      }
      try {
        await migrate(drizzle({ client: conn }), { migrationsFolder: pgMigrationsFolder })
      } finally {
        // A failure here is a lost connection, which took the lock with it; the error that matters is migrate's.
        await conn.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`).catch(() => {})
      }
    } finally {
      conn.release()
    }
  } finally {
    await client.close()
  }
}
