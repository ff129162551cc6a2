/**
 * The dispatcher process: open the shared database, run the loop, stop cleanly on signals.
 * SIGTERM/SIGINT stop claiming and wait for the sends in flight (each bounded by
 * WEBHOOK_TIMEOUT_MS), so a systemd stop loses nothing; a second signal, or a kill -9, exits at
 * once and loses nothing either: the claimed rows come back as soon as another dispatcher (or
 * this one, restarted) finds its proof of life gone (liveness.ts), at the latest when their
 * lease expires.
 */
import { closeDb, openDbOrExit, type Db } from '../db/client'
import { warnIfExposed } from '../db/file-modes'
import { dispatchersDir } from '../db/outbox/wake'
import { maskUrl } from '../db/pg/url'
import { loadConfigOrExit } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { createDispatcher } from './loop'
import { isCompiled, waitForSchema } from './schema-wait'
import { onStopSignals } from '../core/signals'
import { openPostgres } from '../core/postgres-startup'
import type { OutboxStore } from '../db/outbox/store'
import type { CheckpointerStart } from './checkpoint-worker'

/** How often the checkpoint worker copies the WAL back (busy or idle). */
const CHECKPOINT_EVERY_MS = 1000

const config = loadConfigOrExit('dispatcher')
const log = createLogger(config.logLevel, 'dispatcher')
const compiled = isCompiled()
// DATABASE_URL set: PostgreSQL (docs/postgresql.md), else the SQLite file at DATABASE_PATH.
// The compiled binary carries no migrations folder: on PostgreSQL, as on SQLite, the api migrates.
const db: Db = config.databaseUrl
  ? await openPostgres('dispatcher', config, { migrate: !compiled })
  : openDbOrExit('dispatcher', config.databasePath, { migrate: !compiled })
if (db.engine === 'sqlite') warnIfExposed(log, config.databasePath)
/** On PostgreSQL the outbox is PgOutboxStore on the same pool (loaded only then); on SQLite, the loop's default. */
const store: OutboxStore | undefined = db.engine === 'pg' ? new (await import('../db/pg/outbox/store')).PgOutboxStore(db.sql) : undefined
// A stop while waiting for the api's migration has nothing in flight: exit 0 at once, as later.
let stop = async (signal: string): Promise<void> => {
  log.info({ signal }, 'dispatcher stopping')
  await closeDb(db)
  process.exit(0)
}
// A second signal (Ctrl-C again, core/signals.ts): exit now. Nothing is lost: the sends still in
// flight are sent again, by the next dispatcher to find this one gone (or when their leases expire).
let force = (signal: string) => {
  log.warn({ signal }, 'dispatcher exiting now (a second signal)')
  process.exit(1)
}
onStopSignals({ stop: (signal) => void stop(signal), force: (signal) => force(signal) })
// The compiled binary waits for the api's migration on either engine (on PostgreSQL openPostgres
// has connected; the api migrates under the advisory lock), rather than fail every step on
// missing tables until it comes.
const where = config.databaseUrl ? { databaseUrl: maskUrl(config.databaseUrl) } : { databasePath: config.databasePath }
if (compiled) await waitForSchema(db, log, { where })
const dispatcher = createDispatcher({
  db, store, log, metrics: createMetrics(), pollMs: config.dispatcherPollMs,
  timeoutMs: config.webhookTimeoutMs, allowPrivateTargets: config.allowPrivateTargets,
  siteChangeQuietMs: config.siteChangeQuietMs, siteChangeMaxHoldMs: config.siteChangeMaxHoldMs, leaseMs: config.dispatcherLeaseMs,
  concurrency: config.dispatcherConcurrency, perWebhook: config.dispatcherPerWebhook,
  deliveryRetentionMs: config.deliveryLogRetentionDays * 86_400_000,
  checkpoints: false, // on the worker below (SQLite); PostgreSQL has no WAL file of ours to copy back
  // SQLite only: PgOutboxStore keeps its proof of life as a session advisory lock on the server.
  livenessDir: db.engine === 'sqlite' ? dispatchersDir(config.databasePath) : undefined,
})
// WAL checkpoints on their own thread (dispatcher/checkpoint-worker.ts): a checkpoint under load
// takes tens of ms, which on this thread would stall every send in flight. The compiled binary
// carries the worker as a second entrypoint (package.json "build:dispatcher").
// Not on PostgreSQL: the server runs its own checkpoints (and autovacuum); there is no file here to copy into.
const checkpointer = db.engine === 'sqlite' ? startCheckpointer() : null
dispatcher.start()
log.info({ ...where, pollMs: config.dispatcherPollMs, allowPrivateTargets: config.allowPrivateTargets }, 'dispatcher started')

force = (signal: string) => {
  log.warn({ signal, inFlight: dispatcher.inFlight() }, 'dispatcher exiting now (a second signal); the sends in flight go out again once their leases expire')
  process.exit(1)
}
stop = async (signal: string) => {
  log.info({ signal, inFlight: dispatcher.inFlight() }, 'dispatcher stopping')
  await dispatcher.stop()
  checkpointer?.terminate()
  await closeDb(db)
  process.exit(0)
}

function startCheckpointer(): Worker {
  const worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url).href)
  worker.onmessage = ({ data }: MessageEvent<{ error?: string }>) => {
    if (data.error) log.error({ step: 'checkpoint', error: data.error }, 'dispatcher step failed')
  }
  worker.onerror = (event) => log.error({ step: 'checkpoint', error: event.message }, 'checkpoint worker failed')
  worker.postMessage({ path: config.databasePath, everyMs: CHECKPOINT_EVERY_MS } satisfies CheckpointerStart)
  return worker
}
