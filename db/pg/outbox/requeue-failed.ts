/** Recover on PostgreSQL (twin of db/outbox/requeue-failed.ts): one webhook's failed deliveries of a window back to pending. */
import type { SQL } from 'bun'
import type { FailedWindow } from '../../outbox/requeue-failed'
import { WAKE_CHANNEL } from './wake'

/**
 * The seqs of `webhookId`'s deliveries that ended `failed` for events of the window, test sends
 * left out, in the order they happened. The (status, webhook_id, ...) index finds them without
 * reading the webhook's whole log.
 */
export async function failedInWindow(sql: SQL, w: FailedWindow): Promise<number[]> {
  const rows: { seq: number }[] = await sql`SELECT seq::float8 AS seq FROM outbox
    WHERE status = 'failed' AND webhook_id = ${w.webhookId} AND trigger <> 'test'
      AND created_at >= ${w.since} AND created_at < ${w.until} AND updated_at < ${w.before}
    ORDER BY outbox.seq`
  return rows.map((r) => r.seq)
}

/**
 * Makes those of `seqs` still `failed` and last written before `now` pending again, due at `now`,
 * with a fresh budget and trigger `manual`, and wakes the dispatchers (wake.ts) when it queued
 * any: in ONE statement, so the rows and the wake commit together. Answers how many it queued: a
 * row queued meanwhile by another recover, or one that failed again since, is not queued twice
 * (the second UPDATE waits for the first and checks the row's new version).
 */
export async function requeueFailed(sql: SQL, webhookId: string, seqs: readonly number[], now: number): Promise<number> {
  const [row] = await sql.unsafe(
    `WITH queued AS (
       UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = $1, lease_token = NULL, lease_expires_at = NULL,
         trigger = 'manual', updated_at = $1
       WHERE seq = ANY($2::bigint[]) AND webhook_id = $3 AND status = 'failed' AND updated_at < $1
       RETURNING 1
     )
     SELECT n, CASE WHEN n > 0 THEN pg_notify($4, '') END AS woken FROM (SELECT count(*)::int AS n FROM queued) c`,
    [now, sql.array([...seqs], 'BIGINT'), webhookId, WAKE_CHANNEL],
  )
  return row.n as number
}
