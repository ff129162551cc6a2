/**
 * Opens the shared SQLite file once per process with the pragmas both processes rely on.
 */
import { Database } from 'bun:sqlite'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { mkdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import * as schema from './schema'
import { migrateGuarded } from './migrate'
import { createPrivateFile } from './file-modes'
import { heldElsewhere, withAsyncTransactions } from './transaction'
import type { PgHandle, PgTxHandle } from './pg/handle'
import { isLocked } from './errors'

export { holdConnection, useClient } from './transaction'
export { pgHandle, type PgHandle, type PgTxHandle } from './pg/handle'
export { busyReason, isBusy, isLocked, isUniqueViolation } from './errors'

type DrizzleDb = BunSQLiteDatabase<typeof schema>
/** How a transaction begins on SQLite: DEFERRED (a read, the default) or IMMEDIATE (a write). */
export type TransactionConfig = { behavior?: 'deferred' | 'immediate' | 'exclusive' }
/**
 * Opens a transaction whose (async) callback gets a `Tx`; a nested call opens a savepoint. The
 * transaction holds the connection across the callback's awaits (see db/transaction.ts).
 */
export type Transaction = <T>(fn: (tx: Tx) => T | Promise<T>, config?: TransactionConfig) => Promise<T>
/** The SQLite database, with `$client`: the bun:sqlite connection its queries run on. */
export type SqliteDb = Omit<DrizzleDb, 'transaction'> & { readonly engine: 'sqlite'; $client: Database; transaction: SqliteTransaction }
/** `Transaction` on SQLite: the callback gets the SQLite handle. */
export type SqliteTransaction = <T>(fn: (tx: SqliteTx) => T | Promise<T>, config?: TransactionConfig) => Promise<T>
/** The handle a SQLite transaction's callback gets: it runs on the same `$client`, inside the transaction. */
export type SqliteTx = SqliteDb & { readonly $inTransaction: true }
/** Anything that can run SQLite queries: the database or an open transaction. */
export type SqliteConn = SqliteDb | SqliteTx

/**
 * The database a process serves from, naming its dialect in `engine` (drizzle's SQLite database
 * already has a `dialect`, its SQL builder): SQLite (the default) or PostgreSQL (`DATABASE_URL`). Each db/ operation core/ calls picks its SQLite or PostgreSQL twin by it
 * (db/dialect.ts `byDialect`); core/ never asks which one it holds.
 */
export type Db = SqliteDb | PgHandle
/** The handle a transaction's callback gets, on either dialect. */
export type Tx = SqliteTx | PgTxHandle
/** Anything that can run queries: the database or an open transaction. */
export type Conn = Db | Tx

/**
 * Opens (creating if needed) the database at `path`, sets WAL, busy timeout, foreign keys,
 * synchronous=NORMAL and secure_delete=FAST, and applies pending migrations under a cross-process lock.
 */
export function openDb(path: string, opts: { migrate?: boolean } = {}): SqliteDb {
  // A directory made here is for this user only: the database holds webhook secrets, and the
  // file SQLite creates in it is readable by others under the default umask (`bun start`'s ./data).
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    // 0600 whatever the umask, and so are the -wal and -shm files SQLite makes beside it (db/file-modes.ts).
    createPrivateFile(path)
  }
  const sqlite = new Database(path, { create: true, strict: true })
  try {
    return setUp(sqlite, path, opts)
  } catch (e) {
    sqlite.close() // a caller may try again (openDbOrExit, while another process holds the lock)
    throw e
  }
}

function setUp(sqlite: Database, path: string, opts: { migrate?: boolean }): SqliteDb {
  // busy_timeout first: switching a new file to WAL takes a lock another process may hold.
  sqlite.exec('PRAGMA busy_timeout = 10000')
  sqlite.exec('PRAGMA journal_mode = WAL')
  sqlite.exec('PRAGMA foreign_keys = ON')
  sqlite.exec('PRAGMA synchronous = NORMAL')
  // A rewritten or deleted row's old bytes are zeroed in its page, not left as free space: a
  // replaced webhook secret or a dropped provider token must not live on in the file (and in
  // every copy of it). FAST zeroes what costs no extra I/O: the page is written anyway.
  sqlite.exec('PRAGMA secure_delete = FAST')
  // Writers should not pay for copying the WAL back: the dispatcher checkpoints in the
  // background (see checkpoint()); this larger automatic threshold is only a safety net.
  sqlite.exec('PRAGMA wal_autocheckpoint = 10000')
  // A file this process may read but not write (permissions, a read-only mount) fails here, at
  // startup, not as a 500 on the first write after a health check that said ok.
  // (BEGIN IMMEDIATE alone succeeds on such a file in WAL mode: only a page write is refused.)
  if (path !== ':memory:') {
    sqlite.exec('BEGIN IMMEDIATE')
    try {
      sqlite.exec('CREATE TABLE _write_probe (x)')
    } finally {
      sqlite.exec('ROLLBACK')
    }
  }
  const orm = drizzle({ client: sqlite, schema })
  if (opts.migrate !== false) migrateGuarded(orm, path)
  return withAsyncTransactions(orm, sqlite)
}

/** Closes the database: the SQLite file, or the PostgreSQL pool once its queries under way end. */
export async function closeDb(db: Db): Promise<void> {
  if (db.engine === 'pg') await db.sql.close()
  else db.$client.close()
}

/**
 * A PASSIVE checkpoint: copies what it can from the WAL into the database without blocking
 * readers or writers. The dispatcher runs it between passes so api writes stay cheap.
 */
export function checkpoint(db: SqliteDb): void {
  db.$client.exec('PRAGMA wal_checkpoint(PASSIVE)')
}

/**
 * Waits until no other connection holds the write lock, without holding up this process.
 * bun:sqlite waits for a lock inside the statement, synchronously: a write that finds another
 * process (a large seed) holding it would stop every request of the api, reads and `/health`
 * too, for up to busy_timeout. Awaited before a write's transaction, the wait is on timers
 * instead, and the transaction that follows at once rarely finds the lock taken again.
 * Throws SQLITE_BUSY once the connection's busy_timeout has passed, as the statement would.
 */
export async function writeLockFree(db: Db): Promise<void> {
  // PostgreSQL locks rows, not the database: a writer waits for the rows it needs, on the server.
  if (db.engine === 'pg') return
  const c = db.$client
  const timeoutMs = (c.query('PRAGMA busy_timeout').get() as { timeout: number }).timeout
  const deadline = Date.now() + timeoutMs
  for (let waitMs = 1; !tryWriteLock(c, timeoutMs); waitMs = Math.min(2 * waitMs, 25)) {
    const left = deadline - Date.now()
    if (left <= 0) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })
    await Bun.sleep(Math.min(waitMs, left))
  }
}

/**
 * Whether the write lock is free at this moment (taken and given back at once, no wait). The
 * dispatcher asks before each of its writes and, when another process holds the lock, tries
 * again on a later turn instead of waiting inside a statement with every send in flight stopped.
 */
export function writeLockFreeNow(db: SqliteDb): boolean {
  const c = db.$client
  // Another request's transaction of this process holds the connection across its awaits: a
  // write from here would run inside it (db/transaction.ts).
  if (heldElsewhere(c)) return false
  return tryWriteLock(c, (c.query('PRAGMA busy_timeout').get() as { timeout: number }).timeout)
}

/**
 * Asked by a dispatcher step once a read found work, before it writes: false (another process
 * holds the write lock) leaves the work for a later turn instead of waiting inside the statement.
 */
export type MayWrite = () => boolean

/** Takes and at once gives back the write lock without waiting; false when another connection holds it. */
function tryWriteLock(c: Database, timeoutMs: number): boolean {
  if (c.inTransaction) return true // this process's own transaction holds it (writes queue on its mutex)
  c.exec('PRAGMA busy_timeout = 0')
  try {
    c.exec('BEGIN IMMEDIATE')
    c.exec('ROLLBACK')
    return true
  } catch (e) {
    if (isLocked(e)) return false
    throw e
  } finally {
    c.exec(`PRAGMA busy_timeout = ${timeoutMs}`)
  }
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** While another process holds the write lock at startup, a line on stderr this often. */
const LOCKED_AT_START_REPEAT_MS = 60_000

/**
 * `openDb()` for a process entry point: a database that cannot be opened (a directory, not
 * SQLite, not writable) is one line on stderr naming DATABASE_PATH, and exit 1. A database
 * whose write lock another process holds past busy_timeout (a large seed or import) is not
 * unusable: the process says so on stderr (again every minute) and waits for it. Nothing else
 * runs yet, and no signal handler is installed, so SIGTERM still stops it at once.
 */
export function openDbOrExit(processName: string, path: string, opts: { migrate?: boolean } = {}): SqliteDb {
  let saidAt = 0
  for (;;) {
    try {
      return openDb(path, opts)
    } catch (e) {
      if (!isLocked(e)) exitUnusable(processName, path, e)
      if (Date.now() - saidAt >= LOCKED_AT_START_REPEAT_MS) {
        console.error(`${processName}: the database at DATABASE_PATH=${JSON.stringify(path)} is locked by another process's write (a large seed or import?); waiting for it`)
        saidAt = Date.now()
      }
      // Each try waits busy_timeout inside SQLite; a BUSY that comes back at once must not spin.
      Bun.sleepSync(200)
    }
  }
}

function exitUnusable(processName: string, path: string, e: unknown): never {
  // SQLite says only "unable to open database file" for a directory.
  const reason = isDirectory(path) ? `it is a directory; name a file in it, e.g. DATABASE_PATH=${JSON.stringify(join(path, 'content.db'))}.` : (e as Error).message
  console.error(`${processName}: cannot use the database at DATABASE_PATH=${JSON.stringify(path)}: ${reason}`)
  process.exit(1)
}
