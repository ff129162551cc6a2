/**
 * The dispatcher loop (style.md rule 7): `runOnce(now)` and `runUntilIdle()` that tests drive,
 * `start()` / `stop()` around them. Clock, fetch, DNS lookup, randomness and logger are passed in.
 *
 * A full pass runs the bookkeeping (bookkeeping.ts), then claims due outbox rows into the send
 * pool (send-pool.ts), which starts what its slots allow. Sends are not awaited by the polling
 * loop, so one slow receiver never holds back the others (spec.md "Delivery rules" 2). Answers
 * go to the attempt recorder (attempt-recorder.ts); sends read their webhook through the
 * webhook cache (webhook-cache.ts). Every piece of outbox work goes through one OutboxStore
 * (db/outbox/store.ts), awaited. docs/dispatcher.md tells the whole of it.
 */
import { nextAttemptTime } from '../db/outbox/record-attempts'
import { SqliteOutboxStore } from '../db/outbox/sqlite-store'
import type { ClaimedRow, Completion, SendTarget } from '../db/outbox/store'
import { deliverOnce, type DeliverOptions } from '../core/delivery/deliver'
import { nextStep } from '../core/delivery/retry'
import { logAttempt } from './attempt-log'
import { AttemptRecorder } from './attempt-recorder'
import { createBookkeeping } from './bookkeeping'
import { OneAtATime } from './one-at-a-time'
import { ProofOfLife } from './proof-of-life'
import { SendPool, type Slot } from './send-pool'
import { WebhookCache } from './webhook-cache'
import { WriteGate } from './write-gate'
import type { DispatcherDeps } from './deps'

export type { DispatcherDeps } from './deps'

/** A webhook answering within this is "fast": its rows may be claimed ahead of free slots. */
const FAST_MS = 1000
/** A send unanswered for this long stops counting against `concurrency` (send-pool.ts). */
const STALL_MS = 1000
/** The cache holds the read's promise, never null; this stands in for a missing one. */
const NO_TARGET = Promise.resolve(null)

/** Builds a dispatcher over `deps.db`; nothing runs until `start()` or `runOnce()`. */
export function createDispatcher(deps: DispatcherDeps) {
  const { db, log } = deps
  const now = deps.now ?? Date.now
  const timeoutMs = deps.timeoutMs ?? 30_000
  const leaseMs = deps.leaseMs ?? timeoutMs + 30_000
  const concurrency = deps.concurrency ?? 64
  const perWebhook = deps.perWebhook ?? 16
  // A queued row must still have a whole send (timeout) of lease left when it leaves the queue;
  // with a lease barely longer than the timeout there is no room to queue, so no claiming ahead.
  const maxQueueWaitMs = leaseMs - timeoutMs - 2000
  const pool = new SendPool<ClaimedRow>({
    concurrency, perWebhook, maxStalled: deps.maxStalled ?? 4 * concurrency, maxQueueWaitMs, stallMs: STALL_MS, fastMs: FAST_MS,
    claimAhead: maxQueueWaitMs >= 3000 ? (deps.claimAhead ?? 4 * perWebhook) : 0,
  })
  const store = deps.store ?? sqliteStore(db, deps.livenessDir, leaseMs)
  const random = deps.random ?? Math.random
  // One options object for every send (a delivery's JavaScript is counted in microseconds).
  const sendOptions: DeliverOptions = { fetch: deps.fetch ?? fetch, timeoutMs, allowPrivateTargets: deps.allowPrivateTargets ?? false, lookup: deps.lookup, now }
  const gate = new WriteGate(() => store.writeLockFree(), now, log)
  const recorder = new AttemptRecorder<Completion>({
    write: (batch) => store.recordAttempts(batch, now()),
    mayWrite: gate.free,
    // Nothing recorded: the leases expire and the rows are sent again (at least once).
    onError: (err) => log.error({ err }, 'recording attempts failed'),
  })
  /** Changes when another process commits; read by the webhook cache and `tick`. */
  const readVersion = () => store.commitVersion()
  // The cache keeps the read's promise: a send awaits its webhook as it was read at take time.
  const webhooks = new WebhookCache<Promise<SendTarget | null>>((id) => store.sendTarget(id), readVersion)
  const bookkeeping = createBookkeeping({
    db, store, log, mayWrite: gate.free, checkpoints: deps.checkpoints !== false,
    siteChangeQuietMs: deps.siteChangeQuietMs ?? 30_000, siteChangeMaxHoldMs: deps.siteChangeMaxHoldMs ?? 1_800_000,
    retentionMs: deps.deliveryRetentionMs ?? 30 * 86_400_000,
  })

  const proof = new ProofOfLife(store, log, deps.livenessDir)
  /** start()'s taking of the proof of life, which stop() waits for. */
  let starting: Promise<void> | null = null
  let stopped = true
  /** Counts stop() calls: a claim that answers after one gives its rows back (runOnce claims while `stopped`). */
  let stops = 0
  let timer: ReturnType<typeof setTimeout> | null = null
  /** Sends started and not yet recorded (what stop() waits for), and who waits for none. */
  let inFlight = 0
  const idleWaiters: (() => void)[] = []
  /** Where the sends a pass starts are collected, for `runOnce` to wait on. */
  let sink: Promise<void>[] | null = null
  /** The webhook ids claims look at, read on every full pass and after another process commits. */
  let webhookIds: string[] | null = null
  /** A claim found rows due but the lock taken: the next tick claims again without waiting for a commit elsewhere. */
  let claimSkipped = false

  /** Sends one claimed row to `webhook` as it is now (null: deleted) and records the attempt under its lease. */
  async function send(row: ClaimedRow, target: Promise<SendTarget | null>, slot: Slot): Promise<void> {
    try {
      // Awaited even when already read: freeing a deleted webhook's slot (which starts the next
      // queued row, maybe of the same webhook) then comes a turn later, never recursing once per row.
      const webhook = await target
      if (!webhook) return await store.releaseLease(row)
      const startedAt = now()
      const result = await deliverOnce({ webhook, payload: row.payload, eventType: row.eventType, eventId: row.eventId }, sendOptions)
      // The answer is in: the send slot is free now (as in a bare fetch loop), the record follows.
      freeSlot(slot)
      pool.answered(row.webhookId, result.durationMs)
      const step = nextStep(row.attempts + 1, result, random())
      const kept = await recorder.record({ row, result, step, startedAt })
      if (kept && step.status === 'pending') wakeAt(nextAttemptTime({ result, step, startedAt })!)
      logAttempt(log, row, result, step, kept, !kept && !(await store.rowExists(row.seq)))
    } catch (err) {
      log.error({ err, eventId: row.eventId, webhookId: row.webhookId }, 'delivery crashed')
    } finally {
      freeSlot(slot)
      if (--inFlight === 0) for (const resolve of idleWaiters.splice(0)) resolve()
    }
  }

  /** Gives a send's slot back (once); a freed slot is filled at once while started. */
  function freeSlot(slot: Slot) {
    if (pool.free(slot) && !stopped) {
      pump()
      refill()
    }
  }

  const startSend = (row: ClaimedRow, slot: Slot) => {
    inFlight++
    const done = send(row, webhooks.get(row.webhookId) ?? NO_TARGET, slot)
    sink?.push(done)
  }
  const giveBack = (row: ClaimedRow) =>
    store.releaseLease(row).catch((err) => log.error({ err }, 'releasing a lease failed')) // it expires instead

  /** Moves queued rows onto free send slots (send-pool.ts); returns how many started. */
  function pump(): number {
    if (!pool.hasQueued()) return 0
    const t = now()
    webhooks.refresh(false, t)
    return pool.take(t, startSend, giveBack)
  }

  type ClaimAsk = { at: number; ahead: boolean; fresh: boolean }
  /** One claim at a time (one-at-a-time.ts): a claim asked while one runs follows it. */
  const claims = new OneAtATime<ClaimAsk>(claimOnce, (q, a) => ({ at: a.at, ahead: a.ahead || !!q?.ahead, fresh: a.fresh || !!q?.fresh }))

  /**
   * Claims due rows within each webhook's budget (send-pool.ts), queues them and starts what the
   * slots allow. Claims between full passes use the webhook list of the last pass or outside
   * commit: with every budget spent, no promise and no query at all.
   */
  function claimAndSend(at: number, ahead: boolean, fresh: boolean): Promise<void> | void {
    if (!fresh && webhookIds && !claims.busy && !webhookIds.some((id) => pool.budget(id, ahead) > 0)) return void pump()
    return claims.run({ at, ahead, fresh })
  }

  async function claimOnce({ at, ahead, fresh }: ClaimAsk): Promise<void> {
    const stopsBefore = stops
    if (fresh || !webhookIds) webhookIds = await store.webhookIds()
    const budget = (id: string) => pool.budget(id, ahead)
    if (!webhookIds.some((id) => budget(id) > 0)) return void pump()
    claimSkipped = false
    const mayWrite = () => {
      claimSkipped = !gate.free()
      return !claimSkipped
    }
    const rows = await store.claim({ now: at, leaseMs, limit: pool.claimLimit(ahead), budget, webhookIds, mayWrite })
    // Stopped while the claim was on its way (PostgreSQL): the rows go back at once.
    if (stops !== stopsBefore) return void (await Promise.all(rows.map(giveBack)))
    if (rows.length > 0) {
      // Each claim reads the webhooks again (the api in this process commits on this connection,
      // which data_version does not count).
      webhooks.refresh(true, now())
      pool.add(rows, now())
    }
    pump()
  }

  // While started, freed slots are refilled at once (one cheap claim per event-loop turn, not
  // at the next poll): a backlog drains at the receivers' pace.
  let refillQueued = false
  /** A wake hint came (wake-listener.ts): the claim reads the webhook list again, as after an outside commit. */
  let hinted = false
  const runRefill = () => {
    refillQueued = false
    if (stopped) return
    const fresh = hinted
    hinted = false
    claimAndSend(now(), true, fresh)?.catch((err) => log.error({ err }, 'claim failed'))
  }
  function refill() {
    if (stopped || refillQueued) return
    refillQueued = true
    setImmediate(runRefill)
  }

  // A retry is due at a time this dispatcher wrote down, so it wakes for it then: waiting for the
  // next full pass (every pollMs) would add up to pollMs to spec.md's 1-2 s / 2-3 s waits.
  // Rows another dispatcher scheduled, or whose lease expired, still come with the full pass.
  const wakes = new Set<ReturnType<typeof setTimeout>>()
  function wakeAt(due: number) {
    if (stopped) return
    const t = setTimeout(() => {
      wakes.delete(t)
      if (stopped) return
      if (now() < due) wakeAt(due) // a timer may fire a little early; the claim would find nothing due
      else refill()
    }, Math.max(0, due - now()))
    wakes.add(t)
  }

  /** A full pass: bookkeeping, the proof of life, then claims. */
  async function pass(at: number): Promise<void> {
    await bookkeeping(at, inFlight > 0)
    await proof.check(at)
    await claimAndSend(at, !stopped, true)
  }

  /** One pass at `at`, waiting for the sends it started. Returns how many rows it sent. */
  async function runOnce(at = now()): Promise<number> {
    const sends: Promise<void>[] = []
    sink = sends
    try {
      await pass(at)
    } finally {
      sink = null
    }
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
  let lastDataVersion = -1
  let lastFullPass = 0
  async function tick() {
    if (stopped) return
    try {
      const at = now()
      if (pool.active > 0 && pool.stall(at) > 0) refill()
      const v = readVersion()
      const changed = v !== lastDataVersion
      lastDataVersion = v
      if (at - lastFullPass >= deps.pollMs) {
        lastFullPass = at
        await pass(at)
      } else if (changed || claimSkipped) {
        await claimAndSend(at, true, true)
      }
    } catch (err) {
      log.error({ err }, 'dispatcher pass failed')
    }
    if (!stopped) timer = setTimeout(tick, wakeMs)
  }

  return {
    runOnce,
    runUntilIdle,
    /** Starts polling. */
    start() {
      stopped = false
      const onWake = () => {
        hinted = true
        refill()
      }
      // The first tick once the proof is held: every lease this dispatcher writes names its owner.
      starting = proof.start(onWake, deps.livenessDir !== undefined || deps.store !== undefined).then(tick)
    },
    /** Stops claiming, then waits for the sends in flight (each bounded by the timeout) and their records. */
    async stop() {
      stopped = true
      stops++
      if (timer) clearTimeout(timer)
      for (const w of wakes) clearTimeout(w)
      wakes.clear()
      await starting
      await claims.idle()
      // Rows claimed ahead and not sent go back at once rather than when their lease expires.
      await Promise.all(pool.drain().map(giveBack))
      if (inFlight > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve))
      await proof.stop()
    },
    inFlight: () => inFlight,
  }
}

/** The default store: the outbox of `db`, which must then be SQLite (PostgreSQL passes its PgOutboxStore). */
function sqliteStore(db: DispatcherDeps['db'], livenessDir: string | undefined, leaseMs: number): SqliteOutboxStore {
  if (db.engine !== 'sqlite') throw new Error('a dispatcher on PostgreSQL needs its store passed in (PgOutboxStore)')
  return new SqliteOutboxStore(db, { livenessDir, leaseMs })
}
