/**
 * One process of the cross-process restore race (restore-race.test.ts): its own app over the
 * shared database (the SQLite file, or PostgreSQL when DATABASE_URL is set), firing restores and
 * draft edits at one document. Prints one `RESULT <json>` line per request: what it sent and
 * what it got.
 */
import { createApp } from '../../api/app'
import { loadConfig } from '../../core/config'
import { createLogger } from '../../core/log'
import { createMetrics } from '../../core/metrics'
import { closeDb } from '../../db/client'
import { openWorkerDb } from '../process-db'

const [path, id, refs, count, seed] = process.argv.slice(2) as [string, string, string, string, string]
const versions = refs.split(',')
const db = openWorkerDb(path)
const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path, DATABASE_URL: process.env.DATABASE_URL ?? '', LOG_LEVEL: 'silent' }), log: createLogger('silent', 'race'), metrics: createMetrics() })
await app.modules
const call = async (path: string, body: unknown) => {
  const res = await app.handle(new Request(`http://localhost${path}`, {
    method: 'POST', headers: { authorization: 'Bearer tok-editor-000000', 'content-type': 'application/json' }, body: JSON.stringify(body),
  }))
  return { status: res.status, body: (await res.json()) as any }
}
const lists = [null, ['de'], ['en', 'fr'], ['fr']]
let rnd = Number(seed)
const next = (n: number) => (rnd = (rnd * 1103515245 + 12345) % 2 ** 31) % n
for (let i = 0; i < Number(count); i++) {
  if (next(3) === 0) {
    const doc = { id: `${id}/draft`, contentType: 'page', fields: { parent: null, sku: `w${seed}-${i}` }, locales: { en: { title: `w${seed}-${i}`, slug: 'x' } } }
    const r = await call('/content/acme', doc)
    console.log('RESULT ' + JSON.stringify({ kind: 'edit', status: r.status, doc: r.body }))
  } else {
    const version = versions[next(versions.length)]!
    const locales = lists[next(lists.length)]
    const r = await call('/content/apply-version/acme', { kind: 'revision', documentId: id, version, locales })
    console.log('RESULT ' + JSON.stringify({ kind: 'restore', status: r.status, doc: r.body[0]?.document, reason: r.body[0]?.reason, refusal: r.status === 200 ? null : r.body, source: version, locales }))
  }
}
await closeDb(db)
