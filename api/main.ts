/**
 * The api process: check the settings, open the database, listen, stop on signals. It never
 * seeds: the demo team (public tokens) is `bun start`'s (scripts/start.ts), so an api started
 * on its own, e.g. by systemd on a new production database, answers no one until seeded.
 */
import { closeDb, openDbOrExit, type Db } from '../db/client'
import { warnIfExposed } from '../db/file-modes'
import { maskUrl } from '../db/pg/url'
import { createApp, serveApp } from './app'
import { errorResponse } from './http/error-mapping'
import { receiveBody } from '../core/body'
import { loadConfigOrExit } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics, primePublishOutcomes } from '../core/metrics'
import { hasAnyTeam } from '../core/teams/service'
import { onStopSignals } from '../core/signals'
import { openPostgres } from '../core/postgres-startup'

const config = loadConfigOrExit('api')
const log = createLogger(config.logLevel, 'api')
// DATABASE_URL set: PostgreSQL (docs/postgresql.md), else the SQLite file at DATABASE_PATH.
const db: Db = config.databaseUrl ? await openPostgres('api', config) : openDbOrExit('api', config.databasePath)
if (!config.databaseUrl) warnIfExposed(log, config.databasePath)
const where = config.databaseUrl ? { databaseUrl: maskUrl(config.databaseUrl) } : { databasePath: config.databasePath }
const metrics = createMetrics()
primePublishOutcomes(metrics)
if (!await hasAnyTeam(db)) {
  log.warn(where, 'the database holds no team yet: create one with `bun run cli seed <file.json>` (docs/getting-started.md#seeding)')
}

// No SO_REUSEPORT (Elysia's listen asks for it): a second api on a busy port would then share it
// and the kernel would split requests between two databases. A busy port is an error instead.
const app = createApp({ db, config, log, metrics })

/** An answer that ends its connection: a body still on its way would otherwise hold it until the idle timeout. */
function closing(res: Response): Response {
  try {
    res.headers.set('connection', 'close')
    return res
  } catch {
    const copy = new Response(res.body, res) // immutable headers (a fetched response)
    copy.headers.set('connection', 'close')
    return copy
  }
}

/**
 * The app, with each request's body received first, within REQUEST_BODY_TIMEOUT_MS of its headers
 * (core/body.ts `receiveBody`): past it the answer is `408 request_timeout` and the connection
 * closes. A body declared larger than MAX_BODY_BYTES is not read: the app answers 413 at once, and
 * the connection closes rather than wait for the rest of it.
 */
async function answer(request: Request): Promise<Response> {
  if (!request.body || request.method === 'GET' || request.method === 'HEAD') return app.fetch(request)
  const { url, method, headers } = request
  if (Number(headers.get('content-length') ?? 0) > config.maxBodyBytes) return closing(await app.fetch(request))
  let body: Uint8Array | ArrayBuffer
  try {
    body = await receiveBody(request, config.requestBodyTimeoutMs, config.maxBodyBytes)
  } catch (e) {
    return closing(errorResponse(e, 'UNKNOWN', log))
  }
  const res = await app.fetch(new Request(url, { method, headers, body }))
  // A chunked body over the limit was read only in part: the app refused it (413), the rest is not wanted.
  return body.byteLength > config.maxBodyBytes ? closing(res) : res
}

let server: ReturnType<typeof serveApp> | undefined
// The first signal stops cleanly: no new connections, the requests under way answered (a webhook
// test send waits for its receiver, up to WEBHOOK_TIMEOUT_MS). A second one (core/signals.ts) exits
// at once: what a request had not committed is not written (each write is one transaction).
// Installed before the server listens: a Ctrl-C right after `api listening` (a terminal signals
// the api and `bun start` at once) must be a clean stop, not a death by SIGINT (exit 130).
onStopSignals({
  stop: async (signal) => {
    log.info({ signal }, 'api stopping')
    await server?.stop()
    await closeDb(db)
    process.exit(0)
  },
  force: (signal) => {
    log.warn({ signal }, 'api exiting now, without waiting for the requests under way (a second signal)')
    process.exit(1)
  },
})

try {
  server = serveApp({ fetch: answer }, { hostname: config.host, port: config.port, maxBodyBytes: config.maxBodyBytes, webhookTimeoutMs: config.webhookTimeoutMs })
} catch (e) {
  // One line, like every other startup failure, not Elysia's stack trace. Exit 1, not 78: the
  // port may be free again (or the address up) on systemd's next try.
  const inUse = (e as { code?: string }).code === 'EADDRINUSE'
  const why = inUse ? 'the port is in use by another process; stop it or set PORT to a free port' : (e as Error).message
  console.error(`api: cannot listen on ${config.host === '0.0.0.0' ? '' : `HOST=${config.host} `}PORT=${config.port}: ${why}`)
  process.exit(1)
}
// PORT=0 takes any free port: the log names the one the system gave.
log.info({ host: config.host, port: server.port, ...where }, 'api listening')
