/** What `createDispatcher` (loop.ts) is given: its database, logger, clock and limits. */
import type { Db } from '../db/client'
import type { OutboxStore } from '../db/outbox/store'
import type { Logger } from '../core/log'
import type { Metrics } from '../core/metrics'
import type { Lookup } from '../core/delivery/ssrf'

/** The dependencies and settings of one dispatcher; only `db`, `log`, `metrics` and `pollMs` are required. */
export interface DispatcherDeps {
  /**
   * The database core's work runs on (schedules, site changes, the index job, revision
   * compression): SQLite, or PostgreSQL with `store` a PgOutboxStore on the same server.
   */
  db: Db
  /**
   * Where every piece of outbox work goes (db/outbox/store.ts). Default: the outbox of `db`
   * (db/outbox/sqlite-store.ts) with the proof of life in `livenessDir`.
   */
  store?: OutboxStore
  log: Logger
  metrics: Metrics
  pollMs: number
  now?: () => number
  fetch?: typeof fetch
  lookup?: Lookup
  random?: () => number
  timeoutMs?: number
  allowPrivateTargets?: boolean
  siteChangeQuietMs?: number
  siteChangeMaxHoldMs?: number
  /**
   * Run PASSIVE WAL checkpoints in the full pass (default). dispatcher/main.ts turns this off and
   * runs them on a worker thread instead (dispatcher/checkpoint-worker.ts).
   */
  checkpoints?: boolean
  /** How long a claim is owned; an expired lease is claimable again. Default: timeout + 30 s. */
  leaseMs?: number
  /**
   * Sends in flight at once, overall and per webhook. Sends unanswered after STALL_MS leave the
   * overall count (their webhook's still holds them), up to `maxStalled` of them (default 4 x
   * concurrency) so a crowd of hung receivers cannot open sockets without end.
   */
  concurrency?: number
  perWebhook?: number
  maxStalled?: number
  /**
   * While started, rows of a webhook whose last attempt answered fast are claimed this many
   * ahead of its free send slots (default: 4 x perWebhook), so one claim serves many sends.
   * Sends in flight still never exceed `perWebhook`.
   */
  claimAhead?: number
  /**
   * Finished deliveries older than this leave the delivery log (db/outbox/prune.ts); 0 keeps
   * them forever. Default 30 days (DELIVERY_LOG_RETENTION_DAYS).
   */
  deliveryRetentionMs?: number
  /**
   * Where started dispatchers keep their proof of life (db/outbox/liveness.ts), next to the
   * database: rows of one proved dead are claimed at once. Unset: leases alone (tests). Only for
   * the default SQLite store: a store passed in keeps its own proof of life.
   */
  livenessDir?: string
}
