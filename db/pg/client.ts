/**
 * The PostgreSQL connection pool of one process: Bun's built-in `Bun.sql` (no driver to install,
 * the same runtime that runs the rest) through drizzle's `bun-sql` dialect, over db/pg/schema.ts.
 * Every connection the pool opens carries the process's name and the timeouts below, sent in the
 * startup message, so they hold from the first statement and cannot be lost to a reset.
 */
import { SQL } from 'bun'
import { drizzle, type BunSQLDatabase } from 'drizzle-orm/bun-sql'
import * as schema from './schema'
import { databaseOf } from './url'

/** The database, with `$client`: the Bun.sql pool its queries run on. */
export type PgDb = BunSQLDatabase<typeof schema> & { $client: SQL }

export interface PgOptions {
  /** Who holds each connection, as `pg_stat_activity.application_name` shows it: `api`, `dispatcher`, `cli`. */
  processName: string
  /** Connections this process opens at most (DATABASE_POOL_SIZE). */
  poolSize?: number
  /** A statement running longer is cancelled by the server (SQLSTATE 57014): a stuck query cannot hold a connection for ever. */
  statementTimeoutMs?: number
  /** A transaction left open and idle this long is ended by the server, with its row locks. */
  idleInTransactionTimeoutMs?: number
  /** Longest wait for a new connection to be set up, in seconds. */
  connectTimeoutS?: number
}

/** The settings a process gets unless it names others (docs/postgresql.md "The connection pool and its timeouts"). */
export const PG_DEFAULTS = {
  poolSize: 10,
  statementTimeoutMs: 30_000,
  idleInTransactionTimeoutMs: 60_000,
  connectTimeoutS: 10,
} as const

/** `application_name` of a process's connections; PostgreSQL keeps the first 63 bytes. */
export const applicationName = (processName: string) => `content-service ${processName} pid ${process.pid}`

/** The Bun.sql options for `url` with the settings above; used by the pool and by the migration lock's own connection. */
export function pgClientOptions(url: string, opts: PgOptions): Bun.SQL.PostgresOrMySQLOptions {
  const o = { ...PG_DEFAULTS, ...opts }
  return {
    url,
    adapter: 'postgres',
    // Bun lets PGDATABASE win over the URL's database: the URL is what the operator wrote.
    database: databaseOf(url),
    max: o.poolSize,
    connectionTimeout: o.connectTimeoutS,
    connection: {
      application_name: applicationName(o.processName),
      statement_timeout: o.statementTimeoutMs,
      idle_in_transaction_session_timeout: o.idleInTransactionTimeoutMs,
    },
  }
}

/**
 * A pool on `url` (no connection is opened until the first query). Close it with
 * `db.$client.close()`. Use `openPgOrExit` (db/pg/open.ts) in a process entry point.
 */
export function openPg(url: string, opts: PgOptions): PgDb {
  const client = new SQL(pgClientOptions(url, opts))
  return drizzle({ client, schema }) as PgDb
}
