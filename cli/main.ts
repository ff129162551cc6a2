/**
 * `bun run cli seed <file.json>`: create or update what the file names (contract.md "Seeding").
 */
import { openDb } from '../db/client'
import { loadConfig } from '../api/config'
import { seed } from './seed'

const [command, file] = process.argv.slice(2)
const usage = 'usage: bun run cli seed <file.json>'

if (command !== 'seed' || !file) {
  console.error(usage)
  process.exit(2)
}
const config = loadConfig()
const db = openDb(config.databasePath)
try {
  const report = seed(db, null, await Bun.file(file).json())
  console.log(JSON.stringify({ ok: true, databasePath: config.databasePath, ...report }))
} catch (e) {
  console.error(`seed failed: ${(e as Error).message}`)
  process.exit(1)
} finally {
  db.$client.close()
}
