/**
 * Outbox leases (style.md "Outbox and leases"): due rows are claimed with one
 * `UPDATE ... RETURNING` that sets a lease token and expiry; every later write to a claimed
 * row is guarded by that token; a row whose lease expired (its dispatcher died) is due again.
 */
import { and, eq } from 'drizzle-orm'
import type { Db } from '../db/client'
import { deliveryAttempts, outbox, type OutboxRow } from '../db/schema'
import type { AttemptResult } from './deliver'
import type { NextStep } from './retry'

export interface ClaimOptions {
  now: number
  leaseMs: number
  limit: number
  /** Webhooks already at their in-flight cap: their rows wait so others are not held back. */
  skipWebhooks?: string[]
}

/** Claims up to `limit` due rows for this dispatcher; returns them with the lease token set. */
export function claimDue(db: Db, opts: ClaimOptions): OutboxRow[] {
  if (opts.limit <= 0) return []
  const token = crypto.randomUUID()
  const skip = opts.skipWebhooks ?? []
  const skipSql = skip.length > 0 ? `AND webhook_id NOT IN (${skip.map(() => '?').join(',')})` : ''
  const rows = db.$client
    .query(
      `UPDATE outbox SET lease_token = ?, lease_expires_at = ?
       WHERE seq IN (
         SELECT seq FROM outbox
         WHERE status = 'pending' AND next_attempt_at <= ?
           AND (lease_expires_at IS NULL OR lease_expires_at <= ?) ${skipSql}
         ORDER BY next_attempt_at, seq LIMIT ?)
       RETURNING *`,
    )
    .all(token, opts.now + opts.leaseMs, opts.now, opts.now, ...skip, opts.limit) as Record<string, unknown>[]
  return rows.map(fromSql).sort((a, b) => a.seq - b.seq)
}

function fromSql(r: Record<string, unknown>): OutboxRow {
  return {
    seq: r.seq as number, eventId: r.event_id as string, webhookId: r.webhook_id as string, teamId: r.team_id as string,
    eventType: r.event_type as string, payload: r.payload as string, status: r.status as OutboxRow['status'],
    attempts: r.attempts as number, nextAttemptAt: r.next_attempt_at as number, leaseToken: r.lease_token as string | null,
    leaseExpiresAt: r.lease_expires_at as number | null, trigger: r.trigger as OutboxRow['trigger'],
    createdAt: r.created_at as number, updatedAt: r.updated_at as number,
  }
}

/**
 * Records one attempt of a claimed row and moves the row on (delivered, failed, or pending
 * with its next attempt time), releasing the lease. Both writes commit together and only if
 * this dispatcher still holds the lease; returns false (nothing written) when it lost it.
 */
export function completeAttempt(db: Db, row: OutboxRow, result: AttemptResult, step: NextStep, startedAt: number): boolean {
  const attempt = row.attempts + 1
  const nextAttemptAt = step.status === 'pending' ? startedAt + result.durationMs + step.delayMs : null
  return db.transaction(
    (tx) => {
      const updated = tx
        .update(outbox)
        .set({
          status: step.status, attempts: attempt, nextAttemptAt: nextAttemptAt ?? row.nextAttemptAt,
          leaseToken: null, leaseExpiresAt: null, updatedAt: Date.now(),
        })
        .where(and(eq(outbox.seq, row.seq), eq(outbox.leaseToken, row.leaseToken!)))
        .returning({ seq: outbox.seq })
        .all()
      if (updated.length === 0) return false
      tx.insert(deliveryAttempts)
        .values({
          outboxSeq: row.seq, webhookId: row.webhookId, eventId: row.eventId, attempt,
          trigger: row.trigger, startedAt, statusCode: result.statusCode, error: result.error,
          durationMs: result.durationMs, responseBody: result.responseBody, nextAttemptAt,
        })
        .run()
      return true
    },
    { behavior: 'immediate' },
  )
}

/** Gives a claimed row back untouched (e.g. its webhook vanished, or on shutdown). */
export function releaseLease(db: Db, row: OutboxRow): void {
  db.update(outbox)
    .set({ leaseToken: null, leaseExpiresAt: null })
    .where(and(eq(outbox.seq, row.seq), eq(outbox.leaseToken, row.leaseToken!)))
    .run()
}
