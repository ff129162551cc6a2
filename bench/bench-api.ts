/**
 * The api inside a bench's own process (bench/dispatch.ts, bench/latency-floor.ts): a temp
 * database seeded with the test team, `createApp` on it with private webhook targets allowed
 * (the receiver is on 127.0.0.1), and `call`, a request through `app.handle` as the editor.
 */
import { join } from 'node:path'
import { openDb } from '../db/client'
import { createApp } from '../api/app'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { seed } from '../cli/seed'
import { makeTestDir, testSeed, TOKENS } from '../test/helpers'

export async function benchApi(dirPrefix: string) {
  const dir = makeTestDir(dirPrefix)
  const path = join(dir, 'content.db')
  const db = openDb(path)
  await seed(db, null, testSeed())
  const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }), log: createLogger('silent', 'bench'), metrics: createMetrics() })
  const call = async (method: string, url: string, body: unknown) => {
    const res = await app.handle(new Request(`http://localhost${url}`, { method, headers: { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }))
    return res.json() as Promise<any>
  }
  return { dir, path, db, app, call }
}
