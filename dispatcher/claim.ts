/**
 * Outbox leases (style.md "Outbox and leases"): due rows are claimed with one
 * `UPDATE ... RETURNING` that sets a lease token and expiry; every later write to a claimed
 * row is guarded by that token; a row whose lease expired (its dispatcher died) is due again.
 */
import { and, eq } from 'drizzle-orm'
import type { Db, MayWrite } from '../db/client'
import { outbox, type OutboxRow } from '../db/schema'
import type { AttemptResult } from '../core/delivery/deliver'
import type { NextStep } from '../core/delivery/retry'

export interface ClaimOptions {
  now: number
  leaseMs: number
  limit: number
  /** At most this many rows of one webhook in flight, so one backlog or dead receiver cannot take every slot. */
  perWebhook?: number
  /** Sends this dispatcher already has in flight, per webhook id. */
  inFlight?: Record<string, number>
  /** The webhooks to claim for (default: every webhook, read now). */
  webhookIds?: readonly string[]
  /** Rows of one webhook that may be claimed now; replaces `perWebhook`/`inFlight` when given. */
  budget?: (webhookId: string) => number
  /** Asked once rows are found due, before the lease is written; false claims nothing now. */
  mayWrite?: MayWrite
}

/** A claimed outbox row (what sending and recording need) with its event's stored bytes, sent as they are. */
export type ClaimedRow = Pick<OutboxRow, 'seq' | 'eventId' | 'webhookId' | 'eventType' | 'status' | 'attempts' | 'trigger' | 'leaseToken'> & {
  payload: string
}

/** Every webhook's id: the candidates a claim looks at. */
export function listWebhookIds(db: Db): string[] {
  return (db.$client.query('SELECT id FROM webhooks').values() as [string][]).map(([id]) => id)
}

/**
 * Claims up to `limit` due rows for this dispatcher; returns them with the lease token set.
 * Per webhook (within its in-flight budget, so a backlog or a dead receiver never starves the
 * others) ONE `UPDATE ... RETURNING` picks its earliest due rows through an index range scan
 * and leases them: a single write statement holds the write lock from its first read, so two
 * dispatchers never own the same row. The events' stored bytes are read after the lease
 * commits. Webhooks with nothing due are skipped by a read before, so an idle poll never takes
 * the write lock.
 */
export function claimDue(db: Db, opts: ClaimOptions): ClaimedRow[] {
  if (opts.limit <= 0) return []
  const c = db.$client
  const perWebhook = opts.perWebhook ?? opts.limit
  const hooks = opts.webhookIds ?? listWebhookIds(db)
  const due = `status = 'pending' AND webhook_id = $webhook AND next_attempt_at <= $now AND (lease_expires_at IS NULL OR lease_expires_at <= $now)`
  // A read first: a poll that finds nothing due never takes the write lock the api needs.
  const anyDue = c.query(`SELECT 1 FROM outbox INDEXED BY outbox_webhook_due WHERE ${due} LIMIT 1`)
  const budgets = c.transaction(() => {
    const found: [string, number][] = []
    for (const id of hooks) {
      const budget = opts.budget ? opts.budget(id) : perWebhook - (opts.inFlight?.[id] ?? 0)
      if (budget > 0 && anyDue.values({ webhook: id, now: opts.now }).length > 0) found.push([id, budget])
    }
    return found
  })()
  if (budgets.length === 0 || (opts.mayWrite && !opts.mayWrite())) return []
  const leaseRows = c.query(
    `UPDATE outbox SET lease_token = $token, lease_expires_at = $expires
     WHERE seq IN (SELECT seq FROM outbox INDEXED BY outbox_webhook_due WHERE ${due} ORDER BY next_attempt_at, seq LIMIT $limit)
     RETURNING seq, event_id, event_type, attempts, trigger`,
  )
  // The event's bytes, one indexed lookup per row (a subquery in RETURNING costs twice as much).
  const payload = c.query(`SELECT payload FROM outbox_events WHERE event_id = ?`)
  const token = crypto.randomUUID()
  // The write transaction only leases: the api's writers wait for this lock, so the reads below
  // (immutable bytes of rows this dispatcher now owns) run after it, in a read transaction.
  const lease = c.transaction(() => {
    const leased: ClaimedRow[] = []
    let left = opts.limit
    for (const [webhookId, budget] of budgets) {
      if (left <= 0) break
      const params = { token, expires: opts.now + opts.leaseMs, webhook: webhookId, now: opts.now, limit: Math.min(budget, left) }
      for (const [seq, eventId, eventType, attempts, trigger] of leaseRows.values(params) as [number, string, string, number, ClaimedRow['trigger']][]) {
        leased.push({ seq, eventId, webhookId, eventType, status: 'pending', attempts, trigger, leaseToken: token, payload: '' })
        left--
      }
    }
    return leased
  })
  const readPayloads = c.transaction((rows: ClaimedRow[]) => {
    for (const row of rows) {
      const found = payload.values(row.eventId)[0] as [string] | undefined
      // Written with its outbox rows in one transaction; missing means a broken database, not a retry.
      if (!found) throw new Error(`outbox event ${row.eventId} has no stored payload`)
      row.payload = found[0]
    }
    return rows
  })
  return readPayloads(lease.immediate()).sort((a, b) => a.seq - b.seq)
}

export interface Completion {
  row: ClaimedRow
  result: AttemptResult
  step: NextStep
  startedAt: number
}

/** When a row that stays pending is due again: its delay counts from the answer (spec.md "Delivery rules"). */
export function nextAttemptTime({ result, step, startedAt }: Pick<Completion, 'result' | 'step' | 'startedAt'>): number | null {
  return step.status === 'pending' ? startedAt + result.durationMs + step.delayMs : null
}

/**
 * Records attempts of claimed rows and moves each row on (delivered, failed, or pending with
 * its next attempt time), releasing its lease. One transaction for the batch (that is what
 * keeps throughput near a bare fetch loop); within it, each row's update is guarded by its
 * lease token and its attempt row is written only when the guard matched. Returns, per
 * completion, whether this dispatcher still held the lease.
 */
export function completeAttempts(db: Db, items: Completion[]): boolean[] {
  const update = db.$client.query(
    `UPDATE outbox SET status = ?, attempts = ?, next_attempt_at = COALESCE(?, next_attempt_at),
       lease_token = NULL, lease_expires_at = NULL, updated_at = ?
     WHERE seq = ? AND lease_token = ?`,
  )
  const insert = db.$client.query(
    `INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error,
       duration_ms, response_body, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const run = db.$client.transaction(() =>
    items.map((c) => {
      const { row, result, step, startedAt } = c
      const attempt = row.attempts + 1
      const nextAttemptAt = nextAttemptTime(c)
      const changed = update.run(step.status, attempt, nextAttemptAt, Date.now(), row.seq, row.leaseToken).changes
      if (changed === 0) return false
      insert.run(row.seq, row.webhookId, row.eventId, attempt, row.trigger, startedAt, result.statusCode, result.error,
        result.durationMs, result.responseBody, nextAttemptAt)
      return true
    }),
  )
  return run.immediate()
}

/** One completion on its own; see `completeAttempts`. */
export function completeAttempt(db: Db, row: ClaimedRow, result: AttemptResult, step: NextStep, startedAt: number): boolean {
  return completeAttempts(db, [{ row, result, step, startedAt }])[0]!
}

/** Gives a claimed row back untouched (e.g. its webhook vanished, or on shutdown). */
export function releaseLease(db: Db, row: Pick<OutboxRow, 'seq' | 'leaseToken'>): void {
  db.update(outbox)
    .set({ leaseToken: null, leaseExpiresAt: null })
    .where(and(eq(outbox.seq, row.seq), eq(outbox.leaseToken, row.leaseToken!)))
    .run()
}
