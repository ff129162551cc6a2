/**
 * One process of the cross-process PATCH race (patch-race.test.ts): its own app over the shared
 * database (the SQLite file, or PostgreSQL when DATABASE_URL is set), adding field `w<worker>`
 * to the (absent) draft of each document in turn. Prints one `RESULT <json>` line per request.
 */
import { createApp } from '../../api/app'
import { loadConfig } from '../../core/config'
import { createLogger } from '../../core/log'
import { createMetrics } from '../../core/metrics'
import { closeDb } from '../../db/client'
import { openWorkerDb } from '../process-db'

const [path, countText, worker, startAt] = process.argv.slice(2) as [string, string, string, string]
const db = openWorkerDb(path)
const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path, DATABASE_URL: process.env.DATABASE_URL ?? '', LOG_LEVEL: 'silent' }), log: createLogger('silent', 'race'), metrics: createMetrics() })
await app.modules
// Every worker starts at the same moment, so their PATCHes of one draft overlap.
await Bun.sleep(Math.max(0, Number(startAt) - Date.now()))
for (let i = 0; i < Number(countText); i++) {
  const id = `pages/pr${i}/draft`
  const res = await app.handle(new Request(`http://localhost/content/acme?id=${encodeURIComponent(id)}`, {
    method: 'PATCH', headers: { authorization: 'Bearer tok-editor-000000', 'content-type': 'application/json' },
    body: JSON.stringify([{ op: 'add', path: `/fields/w${worker}`, value: i }]),
  }))
  console.log('RESULT ' + JSON.stringify({ id, field: `w${worker}`, status: res.status }))
}
await closeDb(db)
