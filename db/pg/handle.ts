/**
 * The PostgreSQL side of db/client.ts's `Db`: a Bun.sql client (the pool, or an open transaction)
 * that names its dialect. `transaction` is `sql.begin` at the server's default READ COMMITTED
 * (the twins take the row locks they need, docs/postgresql.md); inside a transaction it opens a
 * savepoint, as SQLite's does. `{ behavior: 'immediate' }` (or `'exclusive'`) takes the writer's
 * lock first, as SQLite's BEGIN IMMEDIATE does (`takeWriteLock`).
 */
import type { SQL, TransactionSQL } from 'bun'
import type { Transaction, TransactionConfig, Tx } from '../client'
import { isRetryable } from '../errors'

/** The pool a process serves from. */
export interface PgHandle {
  readonly engine: 'pg'
  readonly sql: SQL
  transaction: Transaction
}

/** The handle a PostgreSQL transaction's callback gets: its statements run inside it. */
export type PgTxHandle = PgHandle & { readonly $inTransaction: true }

/**
 * How often a transaction that lost a race SQLite would have serialised (db/errors.ts
 * `isRetryable`) is begun again before its error goes to the caller (as 503 busy or 409).
 */
export const TRANSACTION_TRIES = 3

/** The handle over `sql` (a pool: `db/pg/client.ts` `openPg(...).$client`). */
export function pgHandle(sql: SQL): PgHandle {
  return {
    engine: 'pg',
    sql,
    transaction: async (fn, config) => {
      for (let tries = 1; ; tries++) {
        try {
          return await sql.begin(async (tx) => {
            await takeWriteLock(tx, config)
            return await fn(txHandle(tx))
          })
        } catch (e) {
          // Nothing of it was kept; run anew, it reads what the winner committed, as SQLite's
          // second writer would have. A savepoint is not retried alone: its transaction is.
          if (tries >= TRANSACTION_TRIES || !isRetryable(e)) throw e
          await Bun.sleep(Math.random() * 5 * tries)
        }
      }
    },
  }
}

function txHandle(sql: TransactionSQL): PgTxHandle {
  return {
    engine: 'pg',
    sql,
    $inTransaction: true,
    transaction: async (fn, config) => await sql.savepoint(async (sp: TransactionSQL) => {
      await takeWriteLock(sp, config)
      return await fn(txHandle(sp) as Tx)
    }),
  }
}

/**
 * SQLite's `BEGIN IMMEDIATE` takes the write lock before the transaction reads, so a write's
 * checks (If-Match, "does it exist yet") hold until it commits. The same here: an `immediate`
 * transaction first locks the change-vector counter row, which every writer of a change vector
 * takes (store/change-vector.ts), so such writes run one at a time, from their first read to
 * their commit, across every process. Before the database's first write there is no row yet: a
 * transaction-scoped advisory lock stands in for it. Without it, a writer that committed after
 * such a transaction's reads and before its bump was overwritten or undone: concurrent PATCHes
 * with one If-Match all landed (test/e2e/pg-races.test.ts), and a publish that read the draft
 * published the older draft and deleted one another api had just restored (a restore answered
 * 200 and then lost, test/e2e/pg-multi-race.test.ts).
 */
async function takeWriteLock(tx: SQL, config?: TransactionConfig): Promise<void> {
  if (config?.behavior !== 'immediate' && config?.behavior !== 'exclusive') return
  const [row] = await tx`SELECT 1 AS locked FROM meta WHERE key = 'etag' FOR UPDATE`
  if (!row) await tx`SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`
}

/** The advisory lock key of the first write ("cmsw" as a 32-bit number); not the migration lock's. */
const WRITE_LOCK_KEY = 0x636d7377
