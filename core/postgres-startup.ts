/**
 * A process started with DATABASE_URL set (docs/postgresql.md "Status and setup"). The schema,
 * the connection pool and the migrations are ready for PostgreSQL, but the domain code in core/
 * runs synchronously over bun:sqlite: until it stands on the async store interface, a process
 * checks the URL, connects, migrates, and then stops, saying so, rather than serve from SQLite
 * while its operator believes it serves from PostgreSQL.
 */
import { maskUrl } from '../db/pg/url'
import { EX_CONFIG, type Config } from './config'

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
      + '(core/ still runs on SQLite only); unset DATABASE_URL to use the SQLite file at DATABASE_PATH. See docs/postgresql.md.',
  )
  process.exit(EX_CONFIG)
}
