/**
 * The dispatcher loop (style.md rule 7): `runOnce(now)` and `runUntilIdle()` that tests drive,
 * `start()` / `stop()` around them. Clock, fetch, DNS lookup, randomness and logger are passed in.
 *
 * A pass runs due scheduled publishes, the index job, site-change coalescing, then claims due
 * outbox rows and sends them concurrently. Sends are not awaited by the polling loop, so one
 * slow receiver never holds back the others (spec.md "Delivery rules" 2); a per-webhook cap
 * keeps a dead receiver from taking every slot.
 */
import { checkpoint, writeLockFreeNow, type Db } from '../db/client'
import type { WebhookRow } from '../db/schema'
import { componentLogger, type Logger } from '../core/log'
import type { Metrics } from '../core/metrics'
import { runDueSchedules } from '../core/publish/scheduled'
import { claimDue, completeAttempts, listWebhookIds, nextAttemptTime, releaseLease, type ClaimedRow, type Completion } from './claim'
import { deliverOnce } from '../core/delivery/deliver'
import { nextStep } from '../core/delivery/retry'
import { emitDueSiteChanges, runIndexJob } from './site-changes'
import { pruneDeliveries } from './prune'
import { compressRevisionsStep } from './compress-revisions'
import type { Lookup } from '../core/delivery/ssrf'
import type { Outgoing } from '../core/delivery/providers'

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
  /**
   * Run PASSIVE WAL checkpoints in `pass()` (default). dispatcher/main.ts turns this off and
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
   * Finished deliveries older than this leave the delivery log (dispatcher/prune.ts); 0 keeps
   * them forever. Default 30 days (DELIVERY_LOG_RETENTION_DAYS).
   */
  deliveryRetentionMs?: number
}

/**
 * One send on the wire: what its slot counts against. A send unanswered after STALL_MS
 * "stalls": it keeps its webhook's slot (perWebhook) but leaves the shared `concurrency`, so
 * hung receivers hold sockets, not the slots every other webhook needs.
 */
interface Slot {
  webhookId: string
  startedAt: number
  wire: boolean
  stalled: boolean
}

/** A claimed row waiting for a send slot of its webhook. */
interface Queued {
  row: ClaimedRow
  claimedAt: number
}

/** A webhook answering within this is "fast": its rows may be claimed ahead of free slots. */
const FAST_MS = 1000
/** A send unanswered for this long stops counting against `concurrency` (see `Slot`). */
const STALL_MS = 1000
/** Under load, the WAL is checkpointed at most this often (always when idle). */
const CHECKPOINT_BUSY_MS = 1000
/**
 * Answered attempts are recorded together: one transaction once this many are waiting, or
 * after RECORD_WAIT_MS. A commit costs about as much as the rows it writes, and an answered
 * row keeps its lease until recorded (a crash before that sends it again: at least once).
 */
const RECORD_BATCH = 64
const RECORD_WAIT_MS = 2
/** While another process holds the write lock, a record is tried again after 1, 2, 4... up to this many ms. */
const LOCKED_RETRY_MAX_MS = 50
/** A write lock held by another process this long is worth a warning (once per wait). */
const LOCK_WARN_MS = 10_000
/**
 * Retention sweeps the outbox a step per full pass (dispatcher/prune.ts: a bounded read, at most
 * this many deliveries removed, a few ms of write lock) until the sweep reaches the end, then
 * starts the next sweep after PRUNE_EVERY_MS.
 */
const PRUNE_BATCH = 200
const PRUNE_EVERY_MS = 10 * 60_000

/** Builds a dispatcher over `deps.db`; nothing runs until `start()` or `runOnce()`. */
export function createDispatcher(deps: DispatcherDeps) {
  const now = deps.now ?? Date.now
  const timeoutMs = deps.timeoutMs ?? 30_000
  const leaseMs = deps.leaseMs ?? timeoutMs + 30_000
  const concurrency = deps.concurrency ?? 64
  const perWebhook = deps.perWebhook ?? 16
  const maxStalled = deps.maxStalled ?? 4 * concurrency
  // A queued row must still have a whole send (timeout) of lease left when it leaves the queue;
  // with a lease barely longer than the timeout there is no room to queue, so no claiming ahead.
  const maxQueueWaitMs = leaseMs - timeoutMs - 2000
  const claimAhead = maxQueueWaitMs >= 3000 ? (deps.claimAhead ?? 4 * perWebhook) : 0
  const random = deps.random ?? Math.random
  const fetchFn = deps.fetch ?? fetch
  const allowPrivateTargets = deps.allowPrivateTargets ?? false
  /** Every started send until its attempt is recorded (what stop() waits for). */
  const inFlight = new Map<number, { done: Promise<void>; slot: Slot }>()
  /**
   * Per webhook: claimed and not yet answered (queued or on the wire), what claim budgets
   * count (an answered row waiting to be recorded still holds its lease, so no claim takes it);
   * on the wire (the capped figure); queued.
   */
  const owned = new Map<string, number>()
  const sending = new Map<string, number>()
  /** Sends on the wire that count against `concurrency` (stalled ones do not). */
  let sendingTotal = 0
  let stalledTotal = 0
  const queues = new Map<string, Queued[]>()
  /** Per webhook: how long its last attempt took (claiming ahead only for fast ones). */
  const lastDurationMs = new Map<string, number>()
  let timer: ReturnType<typeof setTimeout> | null = null
  let stopped = true
  let lastDataVersion = -1
  let lastFullPass = 0
  let lastCheckpoint = 0
  let nextPruneAt = 0
  /** Where the retention sweep goes on (an outbox seq; 0 starts a sweep). */
  let pruneFrom = 0
  const retentionMs = deps.deliveryRetentionMs ?? 30 * 86_400_000
  /** The webhook ids claims look at, read on every full pass and after another process commits. */
  let webhookIds: string[] | null = null

  const bump = (m: Map<string, number>, id: string, by: number) => {
    const n = (m.get(id) ?? 0) + by
    if (n === 0) m.delete(id)
    else m.set(id, n)
  }

  /**
   * Every write of the loop asks first whether the write lock is free. bun:sqlite waits for a
   * lock inside the statement, synchronously: a large seed or import holding it would stop this
   * process for up to busy_timeout, every answer of a send in flight unread (its duration, and
   * its timeout, counted wrong) and SIGTERM unanswered. So a write that finds the lock taken is
   * tried again on a later turn (claims at the next tick, records after a short backoff,
   * schedules and site changes at the next full pass) and the event loop goes on reading
   * answers meanwhile. Only a step that found work asks: an idle pass takes no lock at all.
   */
  let lockTakenSince: number | null = null
  let lockWarned = false
  function lockFree(): boolean {
    if (writeLockFreeNow(deps.db)) {
      lockTakenSince = null
      lockWarned = false
      return true
    }
    const t = now()
    lockTakenSince ??= t
    if (!lockWarned && t - lockTakenSince >= LOCK_WARN_MS) {
      lockWarned = true
      deps.log.warn({ waitedMs: t - lockTakenSince }, 'another process has held the database write lock for a while; claims and records wait for it')
    }
    return false
  }
  /** A claim found rows due but the lock taken: the next tick claims again without waiting for a commit elsewhere. */
  let claimSkipped = false

  // Answered attempts wait here for their transaction (RECORD_BATCH, RECORD_WAIT_MS).
  const toRecord: { c: Completion; resolve: (kept: boolean) => void }[] = []
  let flushTimer: ReturnType<typeof setTimeout> | null = null
  let lockedRetryMs = 1
  function record(c: Completion): Promise<boolean> {
    return new Promise((resolve) => {
      toRecord.push({ c, resolve })
      if (toRecord.length >= RECORD_BATCH) flush()
      else flushTimer ??= setTimeout(flush, RECORD_WAIT_MS)
    })
  }
  function flush() {
    if (flushTimer) clearTimeout(flushTimer)
    flushTimer = null
    if (toRecord.length === 0) return
    if (!lockFree()) {
      // The answers wait here, their rows still leased (a crash now sends them again).
      flushTimer = setTimeout(flush, lockedRetryMs)
      lockedRetryMs = Math.min(2 * lockedRetryMs, LOCKED_RETRY_MAX_MS)
      return
    }
    lockedRetryMs = 1
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

  const webhookStmt = deps.db.$client.query('SELECT provider, target, secret, options FROM webhooks WHERE id = ?')
  function loadWebhook(id: string): Outgoing['webhook'] | null {
    const found = webhookStmt.get(id) as { provider: WebhookRow['provider']; target: string; secret: string; options: string } | null
    return found && { ...found, options: JSON.parse(found.options) as Record<string, unknown> }
  }
  /**
   * Webhooks as sends go out: read once, then kept until this dispatcher claims again or another
   * process commits (`PRAGMA data_version`). A row claimed ahead may wait for its slot while an
   * editor deletes the webhook or changes its target or secret: it goes out as the webhook is
   * when it is sent (or not at all), never to a target or with a secret the answered PATCH or
   * DELETE replaced. Only sends already on the wire keep what they were sent with (and those
   * started in the millisecond of the commit, as data_version is read at most once a millisecond).
   */
  const webhookCache = new Map<string, Outgoing['webhook'] | null>()
  let webhookCacheVersion = -1
  /** When data_version was last read: at most once a millisecond (a read costs ~1.5 µs, a delivery's answer pumps once or twice). */
  let webhookCheckedAt = -1
  /** Changes when another process commits; read here and by `changedElsewhere`. */
  const dataVersion = deps.db.$client.query('PRAGMA data_version')
  function refreshWebhooks(force: boolean, at = now()) {
    if (!force && at === webhookCheckedAt) return
    webhookCheckedAt = at
    const v = (dataVersion.get() as { data_version: number }).data_version
    if (force || v !== webhookCacheVersion) webhookCache.clear()
    webhookCacheVersion = v
  }
  function currentWebhook(id: string): Outgoing['webhook'] | null {
    let webhook = webhookCache.get(id)
    if (webhook === undefined) webhookCache.set(id, (webhook = loadWebhook(id)))
    return webhook
  }

  const rowStmt = deps.db.$client.query('SELECT 1 FROM outbox WHERE seq = ?')

  /** Sends one claimed row to `webhook` as it is now (null: deleted) and records the attempt under its lease. */
  async function send(row: ClaimedRow, webhook: Outgoing['webhook'] | null, slot: Slot): Promise<void> {
    try {
      if (!webhook) return releaseLease(deps.db, row)
      const startedAt = now()
      const result = await deliverOnce(
        { webhook, payload: row.payload, eventType: row.eventType, eventId: row.eventId },
        { fetch: fetchFn, timeoutMs, allowPrivateTargets, lookup: deps.lookup, now },
      )
      // The answer is in: the send slot is free now (as in a bare fetch loop), the record follows.
      freeSlot(slot)
      lastDurationMs.set(row.webhookId, result.durationMs)
      const step = nextStep(row.attempts + 1, { statusCode: result.statusCode, refused: result.refused }, random())
      const kept = await record({ row, result, step, startedAt })
      if (kept && step.status === 'pending') wakeAt(nextAttemptTime({ result, step, startedAt })!)
      const outcome = step.status === 'pending' ? 'retry' : step.status
      const fields = { attempt: row.attempts + 1, statusCode: result.statusCode, error: result.error, detail: result.detail, durationMs: result.durationMs, outcome }
      // style.md rule 10: a child logger per delivery, made only when a line is written (making
      // one costs more than the rest of a no-op delivery's JavaScript). A sibling of deps.log,
      // not its child: a child would write "component" twice (core/log.ts).
      const log = () => componentLogger(deps.log, 'delivery', { eventId: row.eventId, webhookId: row.webhookId })
      if (!kept) {
        // The row is gone with its webhook (deleted during the send): nothing to record, nothing wrong.
        if (!rowStmt.get(row.seq)) log().info({ ...fields, outcome: 'dropped' }, 'the webhook was deleted during the send; the attempt is not recorded')
        else log().warn(fields, 'lease lost before the attempt was recorded; another dispatcher owns the row')
      } else if (step.status === 'delivered') {
        if (deps.log.isLevelEnabled('info')) log().info(fields, 'webhook delivered')
      } else log().warn(fields, step.status === 'failed' ? 'webhook delivery failed for good' : 'webhook attempt failed, will retry')
    } finally {
      freeSlot(slot)
    }
  }

  /** Gives a send's slot back (once; a second call is a no-op). */
  function freeSlot(slot: Slot) {
    if (!slot.wire) return
    slot.wire = false
    bump(owned, slot.webhookId, -1)
    bump(sending, slot.webhookId, -1)
    if (slot.stalled) stalledTotal--
    else sendingTotal--
    if (!stopped) {
      pump()
      refill()
    }
  }

  /** Starts one send; `owned`/`sending` were already counted by the caller. */
  function start(row: ClaimedRow, webhook: Outgoing['webhook'] | null): Promise<void> {
    const slot: Slot = { webhookId: row.webhookId, startedAt: now(), wire: true, stalled: false }
    const done = send(row, webhook, slot)
      .catch((err) => deps.log.error({ err, eventId: row.eventId, webhookId: row.webhookId }, 'delivery crashed'))
      .finally(() => inFlight.delete(row.seq))
    inFlight.set(row.seq, { done, slot })
    return done
  }

  /**
   * Moves sends unanswered for STALL_MS out of the shared `concurrency` (see `Slot`) and claims
   * for the freed slots: four hung receivers at 16 sends each no longer hold back every
   * other webhook until WEBHOOK_TIMEOUT_MS, only for about STALL_MS.
   */
  function releaseStalled(at: number) {
    let moved = 0
    for (const { slot } of inFlight.values()) {
      if (stalledTotal >= maxStalled) break
      if (!slot.wire || slot.stalled || at - slot.startedAt < STALL_MS) continue
      slot.stalled = true
      sendingTotal--
      stalledTotal++
      moved++
    }
    if (moved > 0) refill()
  }

  /** Moves queued rows onto free send slots (per webhook and overall); returns the sends started. */
  function pump(): Promise<void>[] {
    const started: Promise<void>[] = []
    if (queues.size === 0) return started
    const t = now()
    refreshWebhooks(false, t)
    for (const [id, queue] of queues) {
      while (queue.length > 0 && sendingTotal < concurrency && (sending.get(id) ?? 0) < perWebhook) {
        const q = queue.shift()!
        if (claimAhead > 0 && t - q.claimedAt > maxQueueWaitMs) {
          // Too little lease left for a whole send: give the row back (claimable again at once).
          bump(owned, id, -1)
          try {
            releaseLease(deps.db, q.row)
          } catch (err) {
            deps.log.error({ err }, 'releasing a lease failed') // it expires instead
          }
          continue
        }
        bump(sending, id, 1)
        sendingTotal++
        started.push(start(q.row, currentWebhook(id)))
      }
      if (queue.length === 0) queues.delete(id)
    }
    return started
  }

  /**
   * Claims due rows within each webhook's budget (in flight + queued <= perWebhook, plus
   * `claimAhead` for fast webhooks while started), queues them and starts what the slots allow.
   */
  function claimAndSend(at: number, ahead: boolean, fresh: boolean): Promise<void>[] {
    let ownedTotal = 0
    for (const n of owned.values()) ownedTotal += n
    const budget = (id: string) => {
      const n = owned.get(id) ?? 0
      if (!ahead || claimAhead === 0 || !((lastDurationMs.get(id) ?? Infinity) < FAST_MS)) return perWebhook - n
      // A fast webhook with a round of sends still queued is not claimed for: claims stay large.
      return (queues.get(id)?.length ?? 0) > perWebhook ? 0 : perWebhook + claimAhead - n
    }
    const limit = concurrency + (ahead ? claimAhead * Math.ceil(concurrency / perWebhook) : 0) - (ownedTotal - stalledTotal)
    // Claims between full passes use the webhook list of the last pass or outside commit (an
    // unchanged list needs no read: a refill with every budget spent touches no SQLite at all).
    if (fresh || !webhookIds) webhookIds = listWebhookIds(deps.db)
    if (!webhookIds.some((id) => budget(id) > 0)) return pump()
    claimSkipped = false
    const mayWrite = () => {
      claimSkipped = !lockFree()
      return !claimSkipped
    }
    const rows = claimDue(deps.db, { now: at, leaseMs, limit, budget, webhookIds, mayWrite })
    const claimedAt = now()
    // Each claim reads the webhooks again (the api in this process commits on this connection, which
    // data_version does not count).
    if (rows.length > 0) refreshWebhooks(true)
    for (const row of rows) {
      bump(owned, row.webhookId, 1)
      let queue = queues.get(row.webhookId)
      if (!queue) queues.set(row.webhookId, (queue = []))
      queue.push({ row, claimedAt })
    }
    return pump()
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
        claimAndSend(now(), true, false)
      } catch (err) {
        deps.log.error({ err }, 'claim failed')
      }
    })
  }

  // A retry is due at a time this dispatcher wrote down, so it wakes for it then: waiting for the
  // next full pass (every pollMs) would add up to pollMs to spec.md's 1-2 s / 2-3 s waits.
  // Rows another dispatcher scheduled, or whose lease expired, still come with the full pass.
  const wakes = new Set<ReturnType<typeof setTimeout>>()
  function wakeAt(due: number) {
    if (stopped) return
    const timer = setTimeout(() => {
      wakes.delete(timer)
      if (stopped) return
      if (now() < due) wakeAt(due) // a timer may fire a little early; the claim would find nothing due
      else refill()
    }, Math.max(0, due - now()))
    wakes.add(timer)
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
    // PASSIVE WAL checkpoint here, off the api's write path (db/client.ts). While sends are in
    // flight, at most once a second: each checkpoint copies every page changed since the last
    // one and syncs the file, so spacing them out under load copies a hot page once, not 4 times.
    // (The dispatcher process runs them on a worker thread instead: `checkpoints: false`.)
    const due = inFlight.size === 0 || at - lastCheckpoint >= CHECKPOINT_BUSY_MS || at < lastCheckpoint
    if (deps.checkpoints !== false && due) {
      lastCheckpoint = at
      safely('checkpoint', () => checkpoint(deps.db))
    }
    safely('scheduled publishes', () => {
      const failed = (s: { documentId: string; teamId: string }, err: unknown) => deps.log.error({ err, teamId: s.teamId, documentId: s.documentId }, 'scheduled publish failed; tried again in a minute')
      for (const item of runDueSchedules(deps.db, deps.metrics, at, lockFree, failed)) {
        deps.log.info({ documentId: item.id, status: item.status, ...(item.status === 1 ? { reason: item.reason } : {}) }, 'scheduled publish')
      }
    })
    safely('index job', () => runIndexJob(deps.db, lockFree))
    safely('revision compression', () => compressRevisionsStep(deps.db, lockFree, deps.log))
    safely('site changes', () => {
      const rules = { now: at, quietMs: deps.siteChangeQuietMs ?? 30_000, maxHoldMs: deps.siteChangeMaxHoldMs ?? 1_800_000 }
      for (const teamId of emitDueSiteChanges(deps.db, rules, lockFree)) deps.log.info({ teamId }, 'site.changed emitted')
    })
    if (retentionMs > 0 && (at >= nextPruneAt || at < nextPruneAt - PRUNE_EVERY_MS)) {
      safely('retention', () => {
        const { next, ...pruned } = pruneDeliveries(deps.db, at - retentionMs, PRUNE_BATCH, lockFree, pruneFrom)
        // Mid-sweep (or the lock was taken): the next pass goes on; at the end, a new sweep in a while.
        pruneFrom = next ?? 0
        nextPruneAt = next === null ? at + PRUNE_EVERY_MS : at
        if (pruned.deliveries + pruned.siteChanges > 0) deps.log.info(pruned, 'delivery log pruned')
      })
    }
    return claimAndSend(at, !stopped, true)
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
      if (sendingTotal > 0) releaseStalled(at)
      const changed = changedElsewhere()
      if (at - lastFullPass >= deps.pollMs) {
        lastFullPass = at
        pass(at)
      } else if (changed || claimSkipped) {
        claimAndSend(at, true, true)
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
      for (const w of wakes) clearTimeout(w)
      wakes.clear()
      // Rows claimed ahead and not sent go back at once rather than when their lease expires.
      for (const [id, queue] of queues) {
        for (const q of queue.splice(0)) {
          bump(owned, id, -1)
          try {
            releaseLease(deps.db, q.row)
          } catch (err) {
            deps.log.error({ err }, 'releasing a lease failed')
          }
        }
      }
      queues.clear()
      await Promise.all([...inFlight.values()].map((f) => f.done))
    },
    inFlight: () => inFlight.size,
  }
}
