/**
 * The outbox half of the dispatcher on PostgreSQL, for test/e2e/pg-dispatchers.test.ts: a process
 * that runs only the outbox, so a test can kill it mid-burst with nothing else in flight (the
 * service runs dispatcher/main.ts with DATABASE_URL set). It is not a way to run the service: it sends what the outbox at
 * DATABASE_URL holds and nothing else. Schedules, site changes and the other core work of a full
 * pass run on an empty SQLite file of its own, where they find nothing to do, as
 * test/dispatcher/loop-postgres.test.ts does.
 *
 * What it does is the real dispatcher's loop (loop.ts) over PgOutboxStore: the proof of life is a
 * session advisory lock, new events wake it by LISTEN/NOTIFY, claims take rows with `FOR UPDATE
 * SKIP LOCKED` under a lease. Settings come from the same environment as the dispatcher's
 * (DATABASE_URL, DATABASE_POOL_SIZE, DISPATCHER_*, WEBHOOK_*, LOG_LEVEL). It migrates the
 * database first (under the advisory lock of db/pg/migrate.ts, so several may start at once).
 *
 * Once its proof of life is held it logs `pg outbox runner started` with its `owner` id, the
 * prefix of every lease token it writes, and `coreDir`, its SQLite file's directory (a kill -9
 * leaves it behind: whoever killed it removes it). SIGTERM/SIGINT stop it as they stop the real
 * dispatcher: no more claims, rows claimed ahead given back, sends in flight awaited and
 * recorded, the proof given up, exit 0; a second signal exits at once.
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test bun dispatcher/pg-outbox-runner.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb } from '../db/client'
import { openPgOrExit } from '../db/pg/open'
import { PgOutboxStore } from '../db/pg/outbox/store'
import { EX_CONFIG, loadConfigOrExit } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { onStopSignals } from '../core/signals'
import { createDispatcher } from './loop'

const config = loadConfigOrExit('pg outbox runner')
const log = createLogger(config.logLevel, 'dispatcher')
if (!config.databaseUrl) {
  console.error('pg outbox runner: DATABASE_URL is not set: this runner sends from a PostgreSQL outbox only (dispatcher/main.ts runs on SQLite)')
  process.exit(EX_CONFIG)
}
const pg = await openPgOrExit('dispatcher', config.databaseUrl, { poolSize: config.databasePoolSize })

/** PgOutboxStore that logs the owner id of each proof of life it takes (tests match lease tokens against it). */
class LoggedOwnerStore extends PgOutboxStore {
  override async startProofOfLife(): Promise<string> {
    const owner = await super.startProofOfLife()
    log.info({ owner, pid: process.pid, coreDir }, 'pg outbox runner started')
    return owner
  }
}

// Core's part of the pass: an empty SQLite file of this process's own, removed at a clean stop.
const coreDir = mkdtempSync(join(tmpdir(), 'pg-outbox-runner-'))
const core = openDb(join(coreDir, 'core.db'))
const dispatcher = createDispatcher({
  db: core, store: new LoggedOwnerStore(pg.$client), log, metrics: createMetrics(), pollMs: config.dispatcherPollMs,
  timeoutMs: config.webhookTimeoutMs, allowPrivateTargets: config.allowPrivateTargets, leaseMs: config.dispatcherLeaseMs,
  concurrency: config.dispatcherConcurrency, perWebhook: config.dispatcherPerWebhook,
  deliveryRetentionMs: config.deliveryLogRetentionDays * 86_400_000,
})

onStopSignals({
  stop: async (signal) => {
    log.info({ signal, inFlight: dispatcher.inFlight() }, 'pg outbox runner stopping')
    await dispatcher.stop()
    await pg.$client.close()
    core.$client.close()
    rmSync(coreDir, { recursive: true, force: true })
    log.info({ signal }, 'pg outbox runner stopped')
    process.exit(0)
  },
  force: (signal) => {
    log.warn({ signal, inFlight: dispatcher.inFlight() }, 'pg outbox runner exiting now (a second signal); its rows go out again once another finds it gone')
    process.exit(1)
  },
})
dispatcher.start()
