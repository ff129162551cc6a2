/**
 * A process started with DATABASE_URL set (docs/postgresql.md "Status and setup"). The api and
 * the dispatcher run on PostgreSQL (`openPostgres`); the CLI and `bun start` do not yet: they check the
 * URL, connect, migrate, and then stop, saying so, rather than serve from SQLite while their
 * operator believes they serve from PostgreSQL.
 */
import { pgHandle, type Db } from '../db/client'
import { maskUrl } from '../db/pg/url'
import { EX_CONFIG, type Config } from './config'

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

/**
 * Connects to and migrates `config.databaseUrl` (unless `migrate: false`; one line and exit 1 when
 * it cannot: db/pg/open.ts), then stops with one line and exit 78: restarting cannot help,
 * unsetting DATABASE_URL can.
 */
export async function stopOnPostgres(processName: string, config: Config, opts: { migrate?: boolean } = {}): Promise<never> {
  const url = config.databaseUrl!
  // Loaded only here: a process on SQLite (no DATABASE_URL) does not pay for the PostgreSQL driver's modules at startup.
  const { openPgOrExit } = await import('../db/pg/open')
  const db = await openPgOrExit(processName, url, { poolSize: config.databasePoolSize, migrate: opts.migrate })
  await db.$client.close()
  console.error(
    `${processName}: DATABASE_URL=${maskUrl(url)} is reachable${opts.migrate === false ? '' : ' and migrated'}, but the ${processName} does not run on PostgreSQL yet `
      + '(only the api and the dispatcher do); unset DATABASE_URL to use the SQLite file at DATABASE_PATH. See docs/postgresql.md.',
  )
  process.exit(EX_CONFIG)
}
