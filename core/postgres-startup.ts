/**
 * A process started with DATABASE_URL set (docs/postgresql.md "Status and setup"): the api, the
 * dispatcher, the CLI and `bun start` open PostgreSQL here instead of the SQLite file.
 */
import { pgHandle, type Db } from '../db/client'
import type { Config } from './config'

/**
 * Connects to and migrates `config.databaseUrl` under the migration lock (one line and exit 1
 * when it cannot: db/pg/open.ts) and hands back the pool as the handle core/ runs on.
 */
export async function openPostgres(processName: string, config: Config, opts: { migrate?: boolean } = {}): Promise<Db> {
  // Loaded only here: a process on SQLite (no DATABASE_URL) does not pay for the PostgreSQL driver's modules at startup.
  const { openPgOrExit } = await import('../db/pg/open')
  const pool = await openPgOrExit(processName, config.databaseUrl!, { poolSize: config.databasePoolSize, migrate: opts.migrate })
  return pgHandle(pool.$client)
}
