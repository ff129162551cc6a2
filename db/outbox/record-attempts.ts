/**
 * Record attempts: each answered attempt of a claimed row moves the row on (delivered, failed,
 * or pending with its next attempt time), releases its lease, and adds its attempt row.
 */
import type { Database } from 'bun:sqlite'
import type { AttemptRecord, NextStep } from './attempt'
import type { ClaimedRow } from './claim'

export interface Completion {
  row: ClaimedRow
  result: AttemptRecord
  step: NextStep
  startedAt: number
}

/** When a row that stays pending is due again: its delay counts from the answer (spec.md "Delivery rules"). */
export function nextAttemptTime({ result, step, startedAt }: Pick<Completion, 'result' | 'step' | 'startedAt'>): number | null {
  return step.status === 'pending' ? startedAt + result.durationMs + step.delayMs : null
}

/**
 * Records a batch of completions in ONE write transaction (a commit costs about as much as the
 * rows it writes, so batching keeps a delivery's bookkeeping cheap); within it, each row's
 * update is guarded by its lease token and its attempt row is written only when the guard
 * matched. Returns, per completion, whether the lease was still held (false: another
 * dispatcher owns the row now, or the row went with its webhook).
 */
export function recordAttempts(client: Database, items: readonly Completion[], at = Date.now()): boolean[] {
  const update = client.query(
    `UPDATE outbox SET status = ?, attempts = ?, next_attempt_at = COALESCE(?, next_attempt_at),
       lease_token = NULL, lease_expires_at = NULL, updated_at = ?
     WHERE seq = ? AND lease_token = ?`,
  )
  const insert = client.query(
    `INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error,
       duration_ms, response_body, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const run = client.transaction(() =>
    items.map((c) => {
      const { row, result, step, startedAt } = c
      const attempt = row.attempts + 1
      const nextAttemptAt = nextAttemptTime(c)
      if (update.run(step.status, attempt, nextAttemptAt, at, row.seq, row.leaseToken).changes === 0) return false
      insert.run(row.seq, row.webhookId, row.eventId, attempt, row.trigger, startedAt, result.statusCode, result.error,
        result.durationMs, result.responseBody, nextAttemptAt)
      return true
    }),
  )
  return run.immediate()
}

/** One completion on its own; see `recordAttempts`. */
export function recordAttempt(client: Database, row: ClaimedRow, result: AttemptRecord, step: NextStep, startedAt: number): boolean {
  return recordAttempts(client, [{ row, result, step, startedAt }])[0]!
}
