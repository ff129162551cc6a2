/**
 * The send pool: which claimed rows may go on the wire now. Pure bookkeeping, no I/O.
 *
 * Two caps keep one webhook from starving the others (spec.md "Delivery rules" 2): at most
 * `perWebhook` sends of a webhook on the wire, and at most `concurrency` sends overall. A send
 * unanswered after `stallMs` "stalls": it keeps its webhook's slot but leaves the overall
 * count (up to `maxStalled` of them), so hung receivers hold sockets, not the slots every
 * other webhook needs. Claimed rows wait in a queue per webhook until a slot frees.
 */

/** One send on the wire: what its slot counts against. */
export interface Slot {
  webhookId: string
  startedAt: number
  /** On the wire (false once answered: the slot is free). */
  wire: boolean
  /** Unanswered past `stallMs`: no longer counted against `concurrency`. */
  stalled: boolean
}

export interface PoolLimits {
  /** Sends on the wire at once, overall (stalled ones aside). */
  concurrency: number
  /** Sends on the wire at once, per webhook (stalled ones included). */
  perWebhook: number
  /** Stalled sends at most (what keeps a crowd of hung receivers from opening sockets without end). */
  maxStalled: number
  /** Rows of a fast webhook claimed ahead of its free slots (0: none), so one claim serves many sends. */
  claimAhead: number
  /** A queued row waiting longer than this is given back (too little of its lease is left for a whole send). */
  maxQueueWaitMs: number
  /** A send unanswered this long stalls (see above). */
  stallMs: number
  /** A webhook whose last attempt took less than this is fast: its rows may be claimed ahead. */
  fastMs: number
}

/** Per-webhook counts, with the entry gone at zero (a map of every webhook ever seen would only grow). */
function bump(m: Map<string, number>, id: string, by: number) {
  const n = (m.get(id) ?? 0) + by
  if (n === 0) m.delete(id)
  else m.set(id, n)
}

/** Queued rows and send slots of one dispatcher. */
export class SendPool<R extends { webhookId: string }> {
  /** Per webhook: claimed and not yet answered (queued or on the wire): what claim budgets count. */
  private readonly owned = new Map<string, number>()
  private ownedTotal = 0
  /** Per webhook: on the wire (the capped figure). */
  private readonly sending = new Map<string, number>()
  /** On the wire and counted against `concurrency` (stalled ones are not). */
  private sendingTotal = 0
  private stalledTotal = 0
  private readonly queues = new Map<string, { row: R; claimedAt: number }[]>()
  /** The slots on the wire (what `stall` walks). */
  private readonly live = new Set<Slot>()
  /** Per webhook: how long its last attempt took. */
  private readonly lastDurationMs = new Map<string, number>()

  constructor(readonly limits: PoolLimits) {}

  /** Sends on the wire that count against `concurrency`. */
  get active(): number {
    return this.sendingTotal
  }

  /** Rows of webhook `id` a claim may take now: its free slots, and with `ahead` (while started) more for a fast webhook. */
  budget(id: string, ahead: boolean): number {
    const { perWebhook, claimAhead, fastMs } = this.limits
    const n = this.owned.get(id) ?? 0
    if (!ahead || claimAhead === 0 || !((this.lastDurationMs.get(id) ?? Infinity) < fastMs)) return perWebhook - n
    // A fast webhook with a round of sends still queued is not claimed for: claims stay large.
    return (this.queues.get(id)?.length ?? 0) > perWebhook ? 0 : perWebhook + claimAhead - n
  }

  /** Rows one claim may take at most, over every webhook. */
  claimLimit(ahead: boolean): number {
    const { concurrency, perWebhook, claimAhead } = this.limits
    return concurrency + (ahead ? claimAhead * Math.ceil(concurrency / perWebhook) : 0) - (this.ownedTotal - this.stalledTotal)
  }

  /** Queues claimed rows (in their order) for their webhooks' slots. */
  add(rows: readonly R[], claimedAt: number): void {
    for (const row of rows) {
      bump(this.owned, row.webhookId, 1)
      this.ownedTotal++
      let queue = this.queues.get(row.webhookId)
      if (!queue) this.queues.set(row.webhookId, (queue = []))
      queue.push({ row, claimedAt })
    }
  }

  /** Whether any claimed row waits for a slot. */
  hasQueued(): boolean {
    return this.queues.size > 0
  }

  /**
   * Moves queued rows onto free slots at `at`: `start` is called for each with its slot (on the
   * wire from now); `expire` for each that waited past `maxQueueWaitMs` (no longer owned: the
   * caller gives its lease back). Returns how many started.
   */
  take(at: number, start: (row: R, slot: Slot) => void, expire: (row: R) => void): number {
    const { concurrency, perWebhook, claimAhead, maxQueueWaitMs } = this.limits
    let started = 0
    for (const [id, queue] of this.queues) {
      let i = 0
      while (i < queue.length && this.sendingTotal < concurrency && (this.sending.get(id) ?? 0) < perWebhook) {
        const q = queue[i++]!
        if (claimAhead > 0 && at - q.claimedAt > maxQueueWaitMs) {
          this.disown(id)
          expire(q.row)
          continue
        }
        bump(this.sending, id, 1)
        this.sendingTotal++
        const slot: Slot = { webhookId: id, startedAt: at, wire: true, stalled: false }
        this.live.add(slot)
        started++
        start(q.row, slot)
      }
      if (i === queue.length) this.queues.delete(id)
      else if (i > 0) queue.splice(0, i)
    }
    return started
  }

  /** The answer is in (or the send ended): the slot is free. Once per slot; false when it already was. */
  free(slot: Slot): boolean {
    if (!slot.wire) return false
    slot.wire = false
    this.live.delete(slot)
    this.disown(slot.webhookId)
    bump(this.sending, slot.webhookId, -1)
    if (slot.stalled) this.stalledTotal--
    else this.sendingTotal--
    return true
  }

  /** Notes how long webhook `id`'s last attempt took (claiming ahead is only for fast ones). */
  answered(id: string, durationMs: number): void {
    this.lastDurationMs.set(id, durationMs)
  }

  /** Moves sends unanswered for `stallMs` at `at` out of `concurrency` (up to `maxStalled`); returns how many moved. */
  stall(at: number): number {
    let moved = 0
    for (const slot of this.live) {
      if (this.stalledTotal >= this.limits.maxStalled) break
      if (slot.stalled || at - slot.startedAt < this.limits.stallMs) continue
      slot.stalled = true
      this.sendingTotal--
      this.stalledTotal++
      moved++
    }
    return moved
  }

  /** Empties the queues (on stop): the rows, no longer owned, for the caller to give back. */
  drain(): R[] {
    const rows: R[] = []
    for (const [id, queue] of this.queues) {
      for (const q of queue) {
        this.disown(id)
        rows.push(q.row)
      }
    }
    this.queues.clear()
    return rows
  }

  private disown(id: string) {
    bump(this.owned, id, -1)
    this.ownedTotal--
  }
}
