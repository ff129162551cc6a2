/**
 * Async transactions on the process's one SQLite connection (docs/architecture.md "The store is
 * async"). bun:sqlite runs a statement synchronously, but the domain code awaits its store (so a
 * PostgreSQL store can stand under it), and at every await the microtasks of other requests run.
 * On one connection a statement of theirs would then run inside this transaction: see its
 * uncommitted rows, commit or roll back with it. So a transaction holds an async mutex, per
 * connection, from BEGIN to COMMIT/ROLLBACK across its awaits, and every operation on the root
 * database outside a transaction waits for that mutex (`useClient`). Code running inside a
 * transaction that reaches for the root database (legal: it is the same connection) is found
 * through AsyncLocalStorage and runs inside the transaction instead of waiting for itself.
 */
import type { Database } from 'bun:sqlite'
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Db, SqliteConn as Conn, SqliteDb, SqliteTx as Tx, SqliteTransaction as Transaction, TransactionConfig } from './client'

/** A FIFO async mutex: at most one holder; `release` hands it to the longest waiter. */
class Mutex {
  held = false
  private readonly waiters: (() => void)[] = []

  /** Resolves once this caller holds the mutex; taken at once (no tick) when free. */
  acquire(): Promise<void> | void {
    if (!this.held) {
      this.held = true
      return
    }
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  release(): void {
    const next = this.waiters.shift()
    if (next) next()
    else this.held = false
  }
}

const mutexes = new WeakMap<Database, Mutex>()
const mutexOf = (client: Database) => {
  let m = mutexes.get(client)
  if (!m) mutexes.set(client, (m = new Mutex()))
  return m
}

/**
 * What the current async context holds: a connection, and whether a transaction is open on it
 * (`holdConnection` holds one between transactions).
 */
const current = new AsyncLocalStorage<{ client: Database; open: boolean }>()

/** Whether the current async context holds `client` (inside its transaction, or `holdConnection`). */
export const insideTransaction = (client: Database) => current.getStore()?.client === client

/**
 * Whether another async context of this process holds `client` in a transaction right now:
 * a statement run from here would run inside that transaction. The dispatcher's write gate
 * treats it as a taken write lock (db/client.ts `writeLockFreeNow`).
 */
export const heldElsewhere = (client: Database) => mutexOf(client).held && !insideTransaction(client)

/**
 * Runs `fn`, a synchronous use of the connection, on `conn`: at once inside a transaction (the
 * caller's own, found on `conn` or in the async context), else once no transaction of this
 * process holds the connection. Every async store operation goes through here.
 */
export async function useClient<T>(conn: Conn, fn: (client: Database) => T): Promise<T> {
  const client = conn.$client
  if ((conn as Partial<Tx>).$inTransaction || insideTransaction(client)) return fn(client)
  const mutex = mutexOf(client)
  const waited = mutex.acquire()
  if (waited) await waited
  try {
    // Held by this context while `fn` runs: a write gate `fn` asks (the dispatcher's claim asks
    // `writeLockFreeNow` between its read and its write) must not take this hold for another's.
    return current.run({ client, open: false }, () => fn(client))
  } finally {
    mutex.release()
  }
}

/**
 * Runs `fn` holding the connection from its first statement to its last, transactions included:
 * a read transaction and the conditional write that follows it (a restore) see no other
 * request's write in between, as when both ran synchronously. Another process may still write
 * there; the write's change-vector check answers that.
 */
export async function holdConnection<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  // On PostgreSQL each statement takes a connection of the pool: nothing to hold, the
  // change-vector check of the write answers a change in between.
  if (db.engine === 'pg') return fn()
  const client = db.$client
  if (insideTransaction(client)) return fn()
  const mutex = mutexOf(client)
  const waited = mutex.acquire()
  if (waited) await waited
  try {
    return await current.run({ client, open: false }, fn)
  } finally {
    mutex.release()
  }
}

let savepoints = 0

/**
 * The drizzle database with `$client` and an async `transaction`: BEGIN (DEFERRED or IMMEDIATE as
 * asked) under the connection's mutex, the callback awaited, then COMMIT, or ROLLBACK on a throw.
 * The callback's `tx` is the same drizzle database (one connection: its statements run inside the
 * transaction) whose `transaction` opens a savepoint.
 */
export function withAsyncTransactions<D extends object>(orm: D, client: Database): SqliteDb {
  const tx = Object.assign(Object.create(orm) as object, { $client: client, $inTransaction: true as const }) as unknown as Tx
  const savepoint: Transaction = async (fn) => {
    const name = `sp${++savepoints}`
    client.exec(`SAVEPOINT ${name}`)
    try {
      const result = await fn(tx)
      client.exec(`RELEASE ${name}`)
      return result
    } catch (e) {
      client.exec(`ROLLBACK TO ${name}`)
      client.exec(`RELEASE ${name}`)
      throw e
    }
  }
  const transaction: Transaction = async (fn, config?: TransactionConfig) => {
    const held = current.getStore()
    if (held?.client === client && held.open) return await savepoint(fn)
    const mutex = mutexOf(client)
    // Inside `holdConnection` the mutex is this context's already.
    const waited = held?.client === client ? undefined : mutex.acquire()
    if (waited) await waited
    try {
      client.exec(`BEGIN ${(config?.behavior ?? 'deferred').toUpperCase()}`)
      try {
        const result = await current.run({ client, open: true }, () => fn(tx))
        client.exec('COMMIT')
        return result
      } catch (e) {
        if (client.inTransaction) client.exec('ROLLBACK')
        throw e
      }
    } finally {
      if (held?.client !== client) mutex.release()
    }
  }
  Object.assign(tx, { transaction: savepoint })
  return Object.assign(orm, { engine: 'sqlite' as const, $client: client, transaction }) as unknown as SqliteDb
}
