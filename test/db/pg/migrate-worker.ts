/**
 * One process of test/db/pg/migrate.test.ts: waits for the shared start time (so several begin
 * within a millisecond or two of each other), migrates DATABASE_URL, prints what happened.
 */
import { migratePg } from '../../../db/pg/migrate'

const startAt = Number(process.env.START_AT ?? 0)
await Bun.sleep(Math.max(0, startAt - Date.now()))
let waited = false
await migratePg(process.env.DATABASE_URL!, { processName: `migrate-worker ${process.argv[2] ?? ''}`, onWait: () => { waited = true; console.log('waiting') } })
console.log(JSON.stringify({ ok: true, waited }))
