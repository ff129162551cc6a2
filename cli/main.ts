/**
 * `bun run cli seed <file.json>`: create or update what the file names (contract.md "Seeding").
 * `bun run cli push-index <file.json> <teamId>`: deploy a content index definition (spec.md
 * "Events": the push command's deploy sends site.changed `index`).
 */
import { openDb } from '../db/client'
import { loadConfig } from '../api/config'
import { seed } from './seed'
import { pushContentIndex } from '../api/teams/settings'

const [command, file, teamId] = process.argv.slice(2)
const usage = 'usage: bun run cli seed <file.json> | bun run cli push-index <file.json> <teamId>'

if (!file || !(command === 'seed' || (command === 'push-index' && teamId))) {
  console.error(usage)
  process.exit(2)
}
const config = loadConfig()
const db = openDb(config.databasePath)
try {
  const input = await Bun.file(file).json()
  const report = command === 'seed' ? seed(db, null, input) : pushContentIndex(db, { teamId: teamId!, userId: 'cli' }, input)
  console.log(JSON.stringify({ ok: true, databasePath: config.databasePath, ...report }))
} catch (e) {
  console.error(`${command} failed: ${(e as Error).message}`)
  process.exit(1)
} finally {
  db.$client.close()
}
