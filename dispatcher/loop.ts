/**
 * The dispatcher loop (style.md rule 7): `runOnce(now)` and `runUntilIdle()` that tests drive,
 * `start()` / `stop()` around them. Clock, fetch, DNS lookup, randomness and logger are passed in.
 *
 * A pass runs due scheduled publishes, the index job, site-change coalescing, then claims due
 * outbox rows and sends them concurrently. Sends are not awaited by the polling loop, so one
 * slow receiver never holds back the others (spec.md "Delivery rules" 2); a per-webhook cap
 * keeps a dead receiver from taking every slot.
 */
import { checkpoint, type Db } from '../db/client'
import type { OutboxRow, WebhookRow } from '../db/schema'
import type { Logger } from '../api/log'
import type { Metrics } from '../api/metrics'
import { runDueSchedules } from '../api/publish/scheduled'
import { claimDue, completeAttempts, releaseLease, type Completion } from './claim'
import { deliverOnce } from './deliver'
import { nextStep } from './retry'
import { emitDueSiteChanges, runIndexJob } from './site-changes'
import type { Lookup } from './ssrf'

export interface DispatcherDeps {
  db: Db
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
  /** How long a claim is owned; an expired lease is claimable again. Default: timeout + 30 s. */
  leaseMs?: number
  /** Sends in flight at once, overall and per webhook. */
  concurrency?: number
  perWebhook?: number
}

/** Builds a dispatcher over `deps.db`; nothing runs until `start()` or `runOnce()`. */
export function createDispatcher(deps: DispatcherDeps) {
  const now = deps.now ?? Date.now
  const timeoutMs = deps.timeoutMs ?? 30_000
  const leaseMs = deps.leaseMs ?? timeoutMs + 30_000
  const concurrency = deps.concurrency ?? 64
  const perWebhook = deps.perWebhook ?? 16
  const random = deps.random ?? Math.random
  const inFlight = new Map<number, { webhookId: string; done: Promise<void> }>()
  let timer: ReturnType<typeof setTimeout> | null = null
  let stopped = true
  let lastDataVersion = -1
  let lastFullPass = 0

  function inFlightByWebhook(): Record<string, number> {
    const counts: Record<string, number> = {}
    for (const f of inFlight.values()) counts[f.webhookId] = (counts[f.webhookId] ?? 0) + 1
    return counts
  }

  // Attempts finishing in the same event-loop turn are recorded in one transaction.
  const toRecord: { c: Completion; resolve: (kept: boolean) => void }[] = []
  let flushQueued = false
  function record(c: Completion): Promise<boolean> {
    return new Promise((resolve) => {
      toRecord.push({ c, resolve })
      if (!flushQueued) {
        flushQueued = true
        setImmediate(flush)
      }
    })
  }
  function flush() {
    flushQueued = false
    const batch = toRecord.splice(0)
    let kept: boolean[]
    try {
      kept = completeAttempts(deps.db, batch.map((b) => b.c))
    } catch (err) {
      // Nothing recorded: the leases expire and the rows are sent again (at least once).
      deps.log.error({ err }, 'recording attempts failed')
      kept = batch.map(() => false)
    }
    batch.forEach((b, i) => b.resolve(kept[i]!))
  }

  // A cached prepared statement: this runs once per send.
  const webhookStmt = deps.db.$client.query('SELECT provider, target, secret, options FROM webhooks WHERE id = ?')

  /** Sends one claimed row and records the attempt under its lease. */
  async function send(row: OutboxRow): Promise<void> {
    const log = deps.log.child({ component: 'delivery', eventId: row.eventId, webhookId: row.webhookId })
    const found = webhookStmt.get(row.webhookId) as { provider: WebhookRow['provider']; target: string; secret: string; options: string } | null
    if (!found) return releaseLease(deps.db, row)
    const webhook = { ...found, options: JSON.parse(found.options) as Record<string, unknown> }
    const startedAt = now()
    const result = await deliverOnce(
      { webhook, payload: row.payload, eventType: row.eventType, eventId: row.eventId },
      { fetch: deps.fetch ?? fetch, timeoutMs, allowPrivateTargets: deps.allowPrivateTargets ?? false, lookup: deps.lookup, now },
    )
    const step = nextStep(row.attempts + 1, { statusCode: result.statusCode, refused: result.refused }, random())
    const kept = await record({ row, result, step, startedAt })
    const outcome = step.status === 'pending' ? 'retry' : step.status
    const fields = { attempt: row.attempts + 1, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs, outcome }
    if (!kept) log.warn(fields, 'lease lost before the attempt was recorded; another dispatcher owns the row')
    else if (step.status === 'delivered') log.info(fields, 'webhook delivered')
    else log.warn(fields, step.status === 'failed' ? 'webhook delivery failed for good' : 'webhook attempt failed, will retry')
  }

  function dispatch(rows: OutboxRow[]): Promise<void>[] {
    return rows.map((row) => {
      const done = send(row)
        .catch((err) => deps.log.error({ err, eventId: row.eventId, webhookId: row.webhookId }, 'delivery crashed'))
        .finally(() => {
          inFlight.delete(row.seq)
          refill()
        })
      inFlight.set(row.seq, { webhookId: row.webhookId, done })
      return done
    })
  }

  function claimAndSend(at: number): Promise<void>[] {
    const limit = concurrency - inFlight.size
    const rows = claimDue(deps.db, { now: at, leaseMs, limit, perWebhook, inFlight: inFlightByWebhook() })
    return dispatch(rows)
  }

  // While started, freed slots are refilled at once (one cheap claim per event-loop turn, not
  // at the next poll): a backlog drains at the receivers' pace.
  let refillQueued = false
  function refill() {
    if (stopped || refillQueued) return
    refillQueued = true
    setImmediate(() => {
      refillQueued = false
      if (stopped) return
      try {
        claimAndSend(now())
      } catch (err) {
        deps.log.error({ err }, 'claim failed')
      }
    })
  }

  /** Runs one bookkeeping step; a failing step is logged and never keeps deliveries from going out. */
  function safely(step: string, fn: () => void) {
    try {
      fn()
    } catch (err) {
      deps.log.error({ err, step }, 'dispatcher step failed')
    }
  }

  /** A full pass: bookkeeping, then claims; returns the sends it started. */
  function pass(at: number): Promise<void>[] {
    // PASSIVE WAL checkpoint here, off the api's write path (db/client.ts).
    safely('checkpoint', () => checkpoint(deps.db))
    safely('scheduled publishes', () => {
      for (const item of runDueSchedules(deps.db, deps.metrics, at)) {
        deps.log.info({ documentId: item.id, status: item.status, reason: item.reason }, 'scheduled publish')
      }
    })
    safely('index job', () => runIndexJob(deps.db))
    safely('site changes', () => {
      const rules = { now: at, quietMs: deps.siteChangeQuietMs ?? 30_000, maxHoldMs: deps.siteChangeMaxHoldMs ?? 1_800_000 }
      for (const teamId of emitDueSiteChanges(deps.db, rules)) deps.log.info({ teamId }, 'site.changed emitted')
    })
    return claimAndSend(at)
  }

  /** One pass at `at`, waiting for the sends it started. Returns how many rows it sent. */
  async function runOnce(at = now()): Promise<number> {
    const sends = pass(at)
    await Promise.all(sends)
    return sends.length
  }

  /** Passes until one finds nothing due (retries scheduled later are left for later). */
  async function runUntilIdle(): Promise<void> {
    while ((await runOnce()) > 0) {}
  }

  // Between full passes (every pollMs) a cheap `PRAGMA data_version` check (it changes when
  // another process commits) claims new outbox rows as soon as the api writes them, so
  // publish-to-send latency is not a poll. Schedules and site changes wait for the full pass.
  const wakeMs = Math.min(10, deps.pollMs)
  const dataVersion = deps.db.$client.query('PRAGMA data_version')
  function changedElsewhere(): boolean {
    const v = (dataVersion.get() as { data_version: number }).data_version
    const changed = v !== lastDataVersion
    lastDataVersion = v
    return changed
  }

  function tick() {
    if (stopped) return
    try {
      const at = now()
      const changed = changedElsewhere()
      if (at - lastFullPass >= deps.pollMs) {
        lastFullPass = at
        pass(at)
      } else if (changed) {
        claimAndSend(at)
      }
    } catch (err) {
      deps.log.error({ err }, 'dispatcher pass failed')
    }
    if (!stopped) timer = setTimeout(tick, wakeMs)
  }

  return {
    runOnce,
    runUntilIdle,
    /** Starts polling. */
    start() {
      stopped = false
      tick()
    },
    /** Stops claiming, then waits for the sends in flight (each bounded by the timeout). */
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await Promise.all([...inFlight.values()].map((f) => f.done))
    },
    inFlight: () => inFlight.size,
  }
}
