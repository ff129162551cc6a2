/**
 * Outbox leases (style.md "Outbox and leases"): due rows are claimed with one
 * `UPDATE ... RETURNING` that sets a lease token and expiry; every later write to a claimed
 * row is guarded by that token; a row whose lease expired (its dispatcher died) is due again.
 */
import { and, eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { outbox, type OutboxRow } from '../db/schema'
import type { AttemptResult } from './deliver'
import type { NextStep } from './retry'

export interface ClaimOptions {
  now: number
  leaseMs: number
  limit: number
  /** At most this many rows of one webhook in flight, so one backlog or dead receiver cannot take every slot. */
  perWebhook?: number
  /** Sends this dispatcher already has in flight, per webhook id. */
  inFlight?: Record<string, number>
  /** Rows of one webhook that may be claimed now; replaces `perWebhook`/`inFlight` when given. */
  budget?: (webhookId: string) => number
}

/** A claimed outbox row with its event's stored bytes (`outbox_events`), sent as they are. */
export type ClaimedRow = OutboxRow & { payload: string }

/**
 * Claims up to `limit` due rows for this dispatcher; returns them with the lease token set.
 * Candidates are the earliest due rows of each webhook (an index range scan per webhook,
 * within its in-flight budget, so a backlog or a dead receiver never starves the others);
 * the claim itself is ONE `UPDATE ... RETURNING` that re-checks every condition, so two
 * dispatchers never own the same row; it returns each row with its event's stored bytes.
 */
export function claimDue(db: Db, opts: ClaimOptions): ClaimedRow[] {
  if (opts.limit <= 0) return []
  const perWebhook = opts.perWebhook ?? opts.limit
  const due = db.$client.query(
    `SELECT seq FROM outbox INDEXED BY outbox_webhook_due
     WHERE status = 'pending' AND webhook_id = ? AND next_attempt_at <= ?
       AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
     ORDER BY next_attempt_at, seq LIMIT ?`,
  )
  const candidates: number[] = []
  const hooks = db.$client.query(`SELECT id FROM webhooks`).all() as { id: string }[]
  for (const { id } of hooks) {
    const budget = opts.budget ? opts.budget(id) : perWebhook - (opts.inFlight?.[id] ?? 0)
    if (budget <= 0) continue
    for (const r of due.all(id, opts.now, opts.now, budget) as { seq: number }[]) candidates.push(r.seq)
  }
  if (candidates.length === 0) return []
  const token = crypto.randomUUID()
  const rows = db.$client
    .query(
      `UPDATE outbox SET lease_token = ?, lease_expires_at = ?
       WHERE seq IN (SELECT value FROM json_each(?) ORDER BY value LIMIT ?)
         -- unary + keeps SQLite on the primary key: the candidate list is short, the backlog may not be
         AND +status = 'pending' AND +next_attempt_at <= ?
         AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
       -- The event's stored bytes come back with the claim (a statement per row costs more than the lookup).
       RETURNING *, (SELECT payload FROM outbox_events e WHERE e.event_id = outbox.event_id) AS payload`,
    )
    .all(token, opts.now + opts.leaseMs, JSON.stringify(candidates), opts.limit, opts.now, opts.now) as Record<string, unknown>[]
  for (const r of rows) {
    // Written with its outbox rows in one transaction; missing means a broken database, not a retry.
    if (typeof r.payload !== 'string') throw new Error(`outbox event ${r.event_id as string} has no stored payload`)
  }
  return rows.map((r) => fromSql(r, r.payload as string)).sort((a, b) => a.seq - b.seq)
}

function fromSql(r: Record<string, unknown>, payload: string): ClaimedRow {
  return {
    seq: r.seq as number, eventId: r.event_id as string, webhookId: r.webhook_id as string, teamId: r.team_id as string,
    eventType: r.event_type as string, payload, status: r.status as OutboxRow['status'],
    attempts: r.attempts as number, nextAttemptAt: r.next_attempt_at as number, leaseToken: r.lease_token as string | null,
    leaseExpiresAt: r.lease_expires_at as number | null, trigger: r.trigger as OutboxRow['trigger'],
    createdAt: r.created_at as number, updatedAt: r.updated_at as number,
  }
}

export interface Completion {
  row: ClaimedRow
  result: AttemptResult
  step: NextStep
  startedAt: number
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
    items.map(({ row, result, step, startedAt }) => {
      const attempt = row.attempts + 1
      const nextAttemptAt = step.status === 'pending' ? startedAt + result.durationMs + step.delayMs : null
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
export function releaseLease(db: Db, row: OutboxRow): void {
  db.update(outbox)
    .set({ leaseToken: null, leaseExpiresAt: null })
    .where(and(eq(outbox.seq, row.seq), eq(outbox.leaseToken, row.leaseToken!)))
    .run()
}
