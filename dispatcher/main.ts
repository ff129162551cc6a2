/**
 * The dispatcher process: open the shared database, run the loop, stop cleanly on signals.
 * SIGTERM/SIGINT stop claiming and wait for the sends in flight (each bounded by
 * WEBHOOK_TIMEOUT_MS), so a systemd stop loses nothing; a kill -9 loses nothing either, since
 * the claimed rows come back when their lease expires.
 */
import { openDb } from '../db/client'
import { loadConfig } from '../api/config'
import { createLogger } from '../api/log'
import { createMetrics } from '../api/metrics'
import { createDispatcher } from './loop'
import { isCompiled, waitForSchema } from './schema-wait'

const config = loadConfig()
const log = createLogger(config.logLevel, 'dispatcher')
const compiled = isCompiled()
const db = openDb(config.databasePath, { migrate: !compiled })
if (compiled) await waitForSchema(db, log)
const leaseMs = Number(process.env.DISPATCHER_LEASE_MS) || undefined
const dispatcher = createDispatcher({
  db, log, metrics: createMetrics(), pollMs: config.dispatcherPollMs,
  timeoutMs: config.webhookTimeoutMs, allowPrivateTargets: config.allowPrivateTargets,
  siteChangeQuietMs: config.siteChangeQuietMs, siteChangeMaxHoldMs: config.siteChangeMaxHoldMs, leaseMs,
})
dispatcher.start()
log.info({ databasePath: config.databasePath, pollMs: config.dispatcherPollMs, allowPrivateTargets: config.allowPrivateTargets }, 'dispatcher started')

let stopping = false
const stop = async (signal: string) => {
  if (stopping) return
  stopping = true
  log.info({ signal, inFlight: dispatcher.inFlight() }, 'dispatcher stopping')
  await dispatcher.stop()
  db.$client.close()
  process.exit(0)
}
process.on('SIGINT', () => void stop('SIGINT'))
process.on('SIGTERM', () => void stop('SIGTERM'))
