/**
 * `bun run cli copy-to-postgres [--from <sqlite file>] [--to <postgres url>]`: copies a SQLite
 * database (default DATABASE_PATH) into an empty PostgreSQL one (default DATABASE_URL), every
 * table, in one PostgreSQL transaction (docs/postgresql.md "Copying a SQLite database").
 * The source is opened read-only and never changed; the password of the URL is never printed.
 */
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { parseArgs } from 'node:util'
import * as sqliteSchema from '../db/schema'
import * as pgSchema from '../db/pg/schema'
import { planCopy } from '../db/copy/plan'
import { copyToPostgres } from '../db/copy/copy'
import { CopyRefused } from '../db/copy/convert'
import { loadConfigOrExit } from '../core/config'
import { pgClientOptions, PG_DEFAULTS } from '../db/pg/client'
import { migratePg } from '../db/pg/migrate'
import { pgStartupReason } from '../db/pg/open'
import { maskUrl, pgUrlProblem } from '../db/pg/url'
import journal from '../db/migrations/meta/_journal.json'

const NAME = 'copy-to-postgres'
const USAGE = 'bun run cli copy-to-postgres [--from <sqlite file>] [--to <postgres://...>]'

/** Runs the command on its arguments (those after `copy-to-postgres`); answers the exit code. */
export async function copyCommand(args: string[]): Promise<number> {
  let from: string | undefined
  let to: string | undefined
  try {
    ;({ values: { from, to } } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' } }, strict: true, allowPositionals: false }))
  } catch (e) {
    console.error(`${NAME}: ${(e as Error).message}\nusage: ${USAGE}`)
    return 2
  }
  const config = loadConfigOrExit('cli')
  const source = from ?? config.databasePath
  const target = to ?? config.databaseUrl
  if (!target) {
    console.error(`${NAME}: no target: pass --to postgres://... or set DATABASE_URL`)
    return 2
  }
  const shown = maskUrl(target)
  const say = (line: string) => console.error(`${NAME}: ${line.replaceAll(passwordOf(target) || '\u0000', '***')}`)
  const problem = pgUrlProblem(target)
  if (problem) {
    say(`the target ${shown} cannot be used: ${problem} (a postgres:// or postgresql:// URL)`)
    return 1
  }
  let sqlite: Database
  try {
    // Read-only: the source is never written, not even migrated; integers as bigint, exact past 2^53.
    sqlite = new Database(source, { readonly: true, safeIntegers: true })
    sqlite.exec('PRAGMA busy_timeout = 10000')
  } catch (e) {
    say(`cannot open the SQLite database ${JSON.stringify(source)}: ${(e as Error).message}`)
    return 1
  }
  // One connection, no statement timeout: an INSERT of a large batch may take longer than the api's limit.
  const pg = new SQL(pgClientOptions(target, { processName: `cli ${NAME}`, poolSize: 1, statementTimeoutMs: 0 }))
  const started = performance.now()
  try {
    refuseOtherVersion(sqlite, source)
    const plans = planCopy(sqlite, sqliteSchema, pgSchema)
    try {
      await pg.unsafe('SELECT 1')
    } catch (e) {
      say(`cannot connect to ${shown}: ${pgStartupReason(e, target, PG_DEFAULTS.connectTimeoutS)}`)
      return 1
    }
    // A new database is migrated here (under the advisory lock, as the api does): the copy needs its tables.
    await migratePg(target, { processName: `cli ${NAME}` })
    const counts = await copyToPostgres(sqlite, pg, plans)
    const width = Math.max(...counts.map((c) => c.table.length))
    for (const { table, rows } of counts) console.log(`${table.padEnd(width)}  ${rows}`)
    const total = counts.reduce((n, c) => n + c.rows, 0)
    console.log(`copied ${total} rows of ${counts.length} tables from ${source} to ${shown} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    return 0
  } catch (e) {
    say(`${e instanceof CopyRefused ? 'refused' : 'failed'}, nothing was copied to ${shown}: ${(e as Error).message}`)
    return 1
  } finally {
    sqlite.close(true)
    await pg.close()
  }
}

const passwordOf = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).password)
  } catch {
    return ''
  }
}

/** A SQLite file of another version has other columns: said plainly before a table is read. */
function refuseOtherVersion(sqlite: Database, source: string): void {
  let applied = 0
  try {
    applied = Number(sqlite.query<{ n: bigint }, []>('SELECT count(*) AS n FROM __drizzle_migrations').get()!.n)
  } catch {}
  const wanted = journal.entries.length
  if (applied < wanted) throw new CopyRefused(`the SQLite database ${JSON.stringify(source)} has ${applied} of this version's ${wanted} migrations: start the api on it once (it migrates), stop it, then copy`)
  if (applied > wanted) throw new CopyRefused(`the SQLite database ${JSON.stringify(source)} was migrated by a newer version (${applied} migrations, this one knows ${wanted}): copy with that version`)
}
