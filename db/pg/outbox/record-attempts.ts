/**
 * Record attempts on PostgreSQL (twin of db/outbox/record-attempts.ts): each answered attempt of
 * a claimed row moves the row on (delivered, failed, or pending with its next attempt time),
 * releases its lease, and adds its attempt row.
 */
import type { SQL } from 'bun'
import { nextAttemptTime, type Completion } from '../../outbox/record-attempts'

/**
 * Records a batch of completions in ONE statement, so in one transaction and one round trip:
 * each row's update is guarded by its lease token, and an attempt row is written only for the
 * rows whose guard matched. Returns, per completion, whether the lease was still held (false:
 * another dispatcher owns the row now, or the row went with its webhook).
 */
export async function recordAttempts(sql: SQL, items: readonly Completion[], at = Date.now()): Promise<boolean[]> {
  if (items.length === 0) return []
  const col = <T>(f: (c: Completion) => T) => items.map(f)
  const rows: { ord: number }[] = await sql.unsafe(
    `WITH done AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::text[], $7::text[], $8::bigint[],
         $9::int[], $10::text[], $11::int[], $12::text[]) WITH ORDINALITY
         AS d(seq, token, status, attempt, next_attempt_at, webhook_id, event_id, started_at, status_code, error, duration_ms, response_body, ord)
     ), moved AS (
       UPDATE outbox o SET status = d.status, attempts = d.attempt, next_attempt_at = COALESCE(d.next_attempt_at, o.next_attempt_at),
         lease_token = NULL, lease_expires_at = NULL, updated_at = $13
       FROM done d WHERE o.seq = d.seq AND o.lease_token = d.token
       RETURNING d.ord, o.trigger
     ), logged AS (
         INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error,
         duration_ms, response_body, next_attempt_at)
       SELECT d.seq, d.webhook_id, d.event_id, d.attempt, m.trigger, d.started_at, d.status_code, d.error, d.duration_ms,
         d.response_body, d.next_attempt_at
       FROM done d JOIN moved m ON m.ord = d.ord
     )
     SELECT ord::int AS ord FROM moved`,
    [
      sql.array(col((c) => c.row.seq), 'BIGINT'),
      sql.array(col((c) => c.row.leaseToken), 'TEXT'),
      sql.array(col((c) => c.step.status), 'TEXT'),
      sql.array(col((c) => c.row.attempts + 1), 'INT'),
      sql.array(col((c) => nextAttemptTime(c)), 'BIGINT'),
      sql.array(col((c) => c.row.webhookId), 'TEXT'),
      sql.array(col((c) => c.row.eventId), 'TEXT'),
      sql.array(col((c) => c.startedAt), 'BIGINT'),
      sql.array(col((c) => c.result.statusCode), 'INT'),
      sql.array(col((c) => c.result.error), 'TEXT'),
      sql.array(col((c) => c.result.durationMs), 'INT'),
      sql.array(col((c) => c.result.responseBody), 'TEXT'),
      at,
    ],
  )
  // By position in the batch, not by seq: a stale token and the current one may name the same row.
  const held = new Set(rows.map((r) => r.ord))
  return items.map((_, i) => held.has(i + 1))
}
