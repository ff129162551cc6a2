/**
 * The dispatcher process: open the shared database, run the loop, stop cleanly on signals.
 * SIGTERM/SIGINT stop claiming and wait for the sends in flight (each bounded by
 * WEBHOOK_TIMEOUT_MS), so a systemd stop loses nothing; a second signal, or a kill -9, exits at
 * once and loses nothing either: the claimed rows come back as soon as another dispatcher (or
 * this one, restarted) finds its proof of life gone (liveness.ts), at the latest when their
 * lease expires.
 */
import { openDbOrExit } from '../db/client'
import { warnIfExposed } from '../db/file-modes'
import { dispatchersDir } from '../db/outbox/wake'
import { loadConfigOrExit } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { createDispatcher } from './loop'
import { isCompiled, waitForSchema } from './schema-wait'
import { onStopSignals } from '../core/signals'
import { stopOnPostgres } from '../core/postgres-startup'
import type { CheckpointerStart } from './checkpoint-worker'

/** How often the checkpoint worker copies the WAL back (busy or idle). */
const CHECKPOINT_EVERY_MS = 1000

const config = loadConfigOrExit('dispatcher')
const log = createLogger(config.logLevel, 'dispatcher')
const compiled = isCompiled()
// The compiled binary carries no migrations folder: on PostgreSQL, as on SQLite, the api migrates.
if (config.databaseUrl) await stopOnPostgres('dispatcher', config, { migrate: !compiled })
const db = openDbOrExit('dispatcher', config.databasePath, { migrate: !compiled })
warnIfExposed(log, config.databasePath)
// A stop while waiting for the api's migration has nothing in flight: exit 0 at once, as later.
let stop = async (signal: string): Promise<void> => {
  log.info({ signal }, 'dispatcher stopping')
  db.$client.close()
  process.exit(0)
}
// A second signal (Ctrl-C again, core/signals.ts): exit now. Nothing is lost: the sends still in
// flight are sent again, by the next dispatcher to find this one gone (or when their leases expire).
let force = (signal: string) => {
  log.warn({ signal }, 'dispatcher exiting now (a second signal)')
  process.exit(1)
}
onStopSignals({ stop: (signal) => void stop(signal), force: (signal) => force(signal) })
if (compiled) await waitForSchema(db, log, { path: config.databasePath })
const dispatcher = createDispatcher({
  db, log, metrics: createMetrics(), pollMs: config.dispatcherPollMs,
  timeoutMs: config.webhookTimeoutMs, allowPrivateTargets: config.allowPrivateTargets,
  siteChangeQuietMs: config.siteChangeQuietMs, siteChangeMaxHoldMs: config.siteChangeMaxHoldMs, leaseMs: config.dispatcherLeaseMs,
  concurrency: config.dispatcherConcurrency, perWebhook: config.dispatcherPerWebhook,
  deliveryRetentionMs: config.deliveryLogRetentionDays * 86_400_000,
  checkpoints: false, // on the worker below
  livenessDir: dispatchersDir(config.databasePath),
})
// WAL checkpoints on their own thread (dispatcher/checkpoint-worker.ts): a checkpoint under load
// takes tens of ms, which on this thread would stall every send in flight. The compiled binary
// carries the worker as a second entrypoint (package.json "build:dispatcher").
const checkpointer = new Worker(new URL('./checkpoint-worker.ts', import.meta.url).href)
checkpointer.onmessage = ({ data }: MessageEvent<{ error?: string }>) => {
  if (data.error) log.error({ step: 'checkpoint', error: data.error }, 'dispatcher step failed')
}
checkpointer.onerror = (event) => log.error({ step: 'checkpoint', error: event.message }, 'checkpoint worker failed')
checkpointer.postMessage({ path: config.databasePath, everyMs: CHECKPOINT_EVERY_MS } satisfies CheckpointerStart)
dispatcher.start()
log.info({ databasePath: config.databasePath, pollMs: config.dispatcherPollMs, allowPrivateTargets: config.allowPrivateTargets }, 'dispatcher started')

force = (signal: string) => {
  log.warn({ signal, inFlight: dispatcher.inFlight() }, 'dispatcher exiting now (a second signal); the sends in flight go out again once their leases expire')
  process.exit(1)
}
stop = async (signal: string) => {
  log.info({ signal, inFlight: dispatcher.inFlight() }, 'dispatcher stopping')
  await dispatcher.stop()
  checkpointer.terminate()
  db.$client.close()
  process.exit(0)
}
