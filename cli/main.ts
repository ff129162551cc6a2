/**
 * `bun run cli seed <file.json>`: create or update what the file names (contract.md "Seeding").
 * `bun run cli push-index <file.json> [teamId]`: deploy a content index definition (spec.md
 * "Events": the push command's deploy sends site.changed `index`). contract.md writes it without
 * a team: that works when the database holds exactly one team.
 * `bun run cli copy-to-postgres [--from <file>] [--to <url>]`: cli/copy-to-postgres.ts.
 * With DATABASE_URL set, seed and push-index run on PostgreSQL (docs/postgresql.md), as the api does.
 */
import { closeDb, openDbOrExit, type Db } from '../db/client'
import { teamIds } from '../db/queries/teams'
import { maskUrl } from '../db/pg/url'
import { loadConfigOrExit } from '../core/config'
import { applySeed, checkSeedFile, type SeedFile } from './seed'
import { bodyProblem, MAX_BODY_DEPTH } from '../core/body'
import { pushContentIndex } from '../core/teams/settings'
import { openPostgres } from '../core/postgres-startup'

const args = process.argv.slice(2)
const [command, file, teamId] = args
const usage = 'usage: bun run cli seed <file.json> | bun run cli push-index <file.json> [teamId] | bun run cli copy-to-postgres [--from <sqlite file>] [--to <postgres://...>]'

if (command === '--help' || command === '-h' || command === 'help') {
  console.log(usage)
  process.exit(0)
}
// Loaded only for this command: seed and push-index on SQLite do not pay for the PostgreSQL modules.
if (command === 'copy-to-postgres') process.exit(await (await import('./copy-to-postgres')).copyCommand(args.slice(1)))
// An argument too many is a mistake (a second seed file, a team for seed), not something to drop.
const most = command === 'push-index' ? 3 : 2
if (!file || !(command === 'seed' || command === 'push-index') || args.length > most) {
  console.error(usage)
  process.exit(2)
}
const config = loadConfigOrExit('cli')
// The file first: a missing or broken file must not create (and migrate) a database on its way out.
let input: unknown
try {
  input = await Bun.file(file).json()
} catch (e) {
  console.error(`${command} failed: cannot read ${JSON.stringify(file)}: ${(e as { code?: string }).code === 'ENOENT' ? 'no such file' : (e as Error).message}`)
  process.exit(1)
}
// What can be checked without a database is checked before one is opened (and created, and
// migrated): the file's shape and the api's input limits. A failure that needs the database (an
// unknown content type, a refused publish, no team to push to) leaves it as it was.
try {
  if (command === 'seed') checkSeedFile(input, { maxDocumentBytes: config.maxBodyBytes })
  else checkIndexFile(input, Bun.file(file).size)
} catch (e) {
  console.error(`${command} failed: ${(e as Error).message}`)
  process.exit(1)
}
// With DATABASE_URL, PostgreSQL (connected and migrated under its lock, core/postgres-startup.ts); else the SQLite file.
const db: Db = config.databaseUrl ? await openPostgres('cli', config) : openDbOrExit('cli', config.databasePath)
/** Where the command wrote, for its answer line (the URL without its password). */
const where = config.databaseUrl ? { databaseUrl: maskUrl(config.databaseUrl) } : { databasePath: config.databasePath }

/** What `PUT /teams/{teamId}/content-index` takes: a JSON object within the route's limits (docs/api/overview.md#limits). */
function checkIndexFile(definition: unknown, bytes: number): void {
  if (definition === null || typeof definition !== 'object' || Array.isArray(definition)) throw new Error('the content index definition must be a JSON object')
  const problem = bodyProblem(definition, MAX_BODY_DEPTH, 'The content index definition') ?? (bytes > config.maxBodyBytes ? `The file exceeds ${config.maxBodyBytes} bytes (MAX_BODY_BYTES).` : null)
  if (problem) throw new Error(problem)
}

/** The team of a one-team database; with several, the command must name one. */
async function onlyTeam(): Promise<string> {
  const ids = await teamIds(db)
  if (ids.length === 0) throw new Error('the database holds no team yet: seed one first (bun run cli seed <file.json>)')
  if (ids.length > 1) throw new Error(`name the team: the database holds ${ids.length} teams (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''})`)
  return ids[0]!
}

try {
  // The seed file was checked above (`checkSeedFile`): applied as it is, not checked again.
  const report = command === 'seed' ? await applySeed(db, null, input as SeedFile) : await pushContentIndex(db, { teamId: teamId ?? await onlyTeam(), userId: 'cli' }, input)
  console.log(JSON.stringify({ ok: true, ...where, ...report }))
} catch (e) {
  console.error(`${command} failed: ${(e as Error).message}`)
  process.exitCode = 1 // not process.exit(): that would skip the `finally` that closes the database
} finally {
  await closeDb(db)
}
