/**
 * The PostgreSQL side of db/client.ts's `Db`: a Bun.sql client (the pool, or an open transaction)
 * that names its dialect. `transaction` is `sql.begin` at the server's default READ COMMITTED
 * (the twins take the row locks they need, docs/postgresql.md); inside a transaction it opens a
 * savepoint, as SQLite's does. `{ behavior: 'immediate' }` (or `'exclusive'`) takes the writer's
 * lock first, as SQLite's BEGIN IMMEDIATE does (`takeWriterLock`).
 */
import type { SQL, TransactionSQL } from 'bun'
import type { Transaction, TransactionConfig, Tx } from '../client'

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
    transaction: async (fn, config) => await sql.begin(async (tx) => {
      if (writes(config)) await takeWriterLock(tx)
      return await fn(txHandle(tx))
    }),
  }
}

const writes = (config: TransactionConfig | undefined) => config?.behavior === 'immediate' || config?.behavior === 'exclusive'

/**
 * SQLite's BEGIN IMMEDIATE on PostgreSQL: the change-vector counter's row lock
 * (db/pg/store/change-vector.ts), taken as the transaction's first statement rather than at its
 * first bump. The code that asks for IMMEDIATE reads, then writes what it read (a publish reads the
 * draft, publishes it and removes it): on SQLite no other writer commits in between; here a writer
 * that committed after those reads and before the bump was overwritten or undone (a restore
 * answered 200 and then lost, test/e2e/pg-multi-race.test.ts). Held to the commit, as the bump's
 * lock is. Before a database's first write there is no counter row and nothing is locked.
 */
async function takeWriterLock(sql: TransactionSQL): Promise<void> {
  await sql`SELECT 1 FROM meta WHERE key = 'etag' FOR UPDATE`
}

function txHandle(sql: TransactionSQL): PgTxHandle {
  return {
    engine: 'pg',
    sql,
    $inTransaction: true,
    transaction: async (fn, config) => await sql.savepoint(async (sp: TransactionSQL) => {
      if (writes(config)) await takeWriterLock(sp)
      return await fn(txHandle(sp) as Tx)
    }),
  }
}
