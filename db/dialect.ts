/**
 * One place per db/ module where an operation picks its SQLite or PostgreSQL twin by the
 * handle's dialect (db/client.ts `Db`): the twins take the same arguments after the connection.
 */
import type { SQL } from 'bun'
import type { PgHandle, PgTxHandle, SqliteConn } from './client'

/** The operation of `conn`'s dialect: `sqlite` with the SQLite handle, `pg` with the Bun.sql client. */
export function byDialect<C extends SqliteConn, A extends unknown[], R>(
  sqlite: (conn: C, ...args: A) => Promise<R>,
  pg: (sql: SQL, ...args: A) => Promise<R>,
): (conn: C | PgHandle | PgTxHandle, ...args: A) => Promise<R> {
  return async (conn, ...args) => (conn.engine === 'pg' ? await pg(conn.sql, ...args) : await sqlite(conn, ...args))
}
