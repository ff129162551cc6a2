/**
 * What a database error means for the caller, on either engine: core/ and api/ ask here and
 * never read a SQLite code or a PostgreSQL SQLSTATE themselves (docs/postgresql.md#errors).
 */

interface DriverError { code?: unknown; errno?: unknown; cause?: unknown }

/** The error itself, or what drizzle's query layer wrapped (`DrizzleQueryError.cause`). */
function driverError(error: unknown): DriverError | null {
  if (!error || typeof error !== 'object') return null
  const e = error as DriverError
  if (e.code === undefined && e.errno === undefined && e.cause && typeof e.cause === 'object') return e.cause as DriverError
  return e
}

/** A PostgreSQL error's SQLSTATE (Bun.sql puts it in `errno`), or null. */
function sqlState(error: unknown): string | null {
  const e = driverError(error)
  return e?.code === 'ERR_POSTGRES_SERVER_ERROR' && typeof e.errno === 'string' ? e.errno : null
}

const code = (error: unknown) => String(driverError(error)?.code ?? '')

/**
 * SQLite's "the database is locked": another connection held the write lock past busy_timeout.
 * Thrown by bun:sqlite itself or wrapped by drizzle's query layer.
 */
export function isLocked(error: unknown): boolean {
  return /^SQLITE_BUSY/.test(code(error))
}

/**
 * PostgreSQL errors after which the same transaction, begun again, may well succeed: it lost a
 * race SQLite would have serialised (a deadlock, a serialization failure, a unique key another
 * transaction took between this one's read and its insert). Nothing of it was kept.
 */
const RETRYABLE = new Set(['40001', '40P01', '23505'])

/** Whether a PostgreSQL transaction that failed with `error` should be run again (bounded: db/pg/handle.ts). */
export function isRetryable(error: unknown): boolean {
  return RETRYABLE.has(sqlState(error) ?? '')
}

/**
 * SQLSTATEs that mean "busy or unreachable for now, try again shortly", as SQLite's BUSY does:
 * lock and serialization conflicts left after the retries, a lock or statement timeout, too many
 * connections, the server shutting down or ending this backend (pg_terminate_backend), and every
 * connection exception (class 08).
 */
const BUSY = new Set(['40001', '40P01', '55P03', '57014', '53300', '57P01', '57P02', '57P03', '25P03'])

/** Bun.sql's own errors for a connection that is gone or never came (no SQLSTATE: the server did not answer). */
const UNREACHABLE = /^ERR_POSTGRES_(CONNECTION_|.*TIMEOUT$)/

/**
 * The database could not do the write now but may in a moment, and nothing of it was kept: SQLite's
 * BUSY, or on PostgreSQL a lock, timeout, deadlock or lost connection. The api answers
 * `503 busy` with `Retry-After` (api/http/error-mapping.ts); a batch stops at that item.
 */
export function isBusy(error: unknown): boolean {
  if (isLocked(error)) return true
  const state = sqlState(error)
  if (state) return BUSY.has(state) || state.startsWith('08')
  return UNREACHABLE.test(code(error))
}

/**
 * A unique key (or primary key) another write already holds: on PostgreSQL a concurrent insert
 * that committed first (left after the retries); on SQLite a constraint the code did not check.
 */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === '23505' || /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(code(error))
}

/** What made an error busy, for a log line: the driver's code and SQLSTATE, never a query or its values. */
export function busyReason(error: unknown): string {
  const state = sqlState(error)
  return state ? `SQLSTATE ${state}` : code(error) || 'unknown'
}
