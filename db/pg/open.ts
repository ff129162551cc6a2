/**
 * `openPg` for a process entry point: the server is reached and the schema migrated before the
 * process does anything else, and what stops it is one line naming DATABASE_URL (its password
 * masked), as db/client.ts `openDbOrExit` does for DATABASE_PATH.
 */
import { openPg, PG_DEFAULTS, type PgDb, type PgOptions } from './client'
import { migratePg } from './migrate'
import { maskUrl } from './url'

type PgError = { code?: string; errno?: string; message?: string }

/** What went wrong, in words an operator can act on, from Bun.sql's error (`code`) or the server's SQLSTATE (`errno`). */
export function pgStartupReason(e: unknown, url: string, connectTimeoutS: number): string {
  const { code, errno, message } = (e ?? {}) as PgError
  const u = new URL(url)
  const at = `${u.hostname || 'localhost'}:${u.port || 5432}`
  if (code === 'ERR_POSTGRES_CONNECTION_REFUSED') return `cannot reach a PostgreSQL server at ${at}: nothing accepts connections there (is it running? is the host name right?)`
  if (code === 'ERR_POSTGRES_CONNECTION_TIMEOUT' || code === 'ERR_POSTGRES_CONNECTION_FAILED') {
    return `no PostgreSQL server answered at ${at} within ${connectTimeoutS} s (${message})`
  }
  if (errno === '28000' || errno === '28P01') return `the server refused the login: ${message}`
  if (errno === '3D000') return `${message}: create it (createdb) or name an existing one`
  return message ?? String(e)
}

/**
 * Opens the pool, checks that the server takes this login and database, and applies pending
 * migrations under the advisory lock (db/pg/migrate.ts; `migrate: false` skips them). On failure:
 * one line on stderr and exit 1, since the server may come back and a restart then succeeds
 * (a malformed DATABASE_URL is refused earlier, by core/config.ts, with exit 78).
 */
export async function openPgOrExit(processName: string, url: string, opts: Omit<PgOptions, 'processName'> & { migrate?: boolean } = {}): Promise<PgDb> {
  const db = openPg(url, { ...opts, processName })
  const fail = (e: unknown, doing: string): never => {
    console.error(`${processName}: cannot use the PostgreSQL database at DATABASE_URL=${maskUrl(url)}: ${doing}${pgStartupReason(e, url, opts.connectTimeoutS ?? PG_DEFAULTS.connectTimeoutS)}`)
    process.exit(1)
  }
  try {
    await db.$client.unsafe('SELECT 1')
  } catch (e) {
    fail(e, '')
  }
  if (opts.migrate === false) return db
  try {
    await migratePg(url, {
      ...opts,
      processName,
      onWait: () => console.error(`${processName}: waiting for another process's migration of DATABASE_URL=${maskUrl(url)} to finish`),
    })
  } catch (e) {
    fail(e, 'migrating failed: ')
  }
  return db
}
