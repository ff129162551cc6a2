/**
 * The PostgreSQL side of db/client.ts's `Db`: a Bun.sql client (the pool, or an open transaction)
 * that names its dialect. `transaction` is `sql.begin` at the server's default READ COMMITTED
 * (the twins take the row locks they need, docs/postgresql.md); inside a transaction it opens a
 * savepoint, as SQLite's does.
 */
import type { SQL, TransactionSQL } from 'bun'
import type { Transaction, Tx } from '../client'

/** The pool a process serves from. */
export interface PgHandle {
  readonly engine: 'pg'
  readonly sql: SQL
  transaction: Transaction
}

/** The handle a PostgreSQL transaction's callback gets: its statements run inside it. */
export type PgTxHandle = PgHandle & { readonly $inTransaction: true }

/** The handle over `sql` (a pool: `db/pg/client.ts` `openPg(...).$client`). */
export function pgHandle(sql: SQL): PgHandle {
  return {
    engine: 'pg',
    sql,
    transaction: async (fn) => await sql.begin(async (tx) => await fn(txHandle(tx))),
  }
}

function txHandle(sql: TransactionSQL): PgTxHandle {
  return {
    engine: 'pg',
    sql,
    $inTransaction: true,
    transaction: async (fn) => await sql.savepoint(async (sp: TransactionSQL) => await fn(txHandle(sp) as Tx)),
  }
}
