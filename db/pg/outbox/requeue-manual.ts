/** Manual redeliver on PostgreSQL (twin of db/outbox/requeue-manual.ts): a delivery goes back to pending with a fresh budget of attempts. */
import type { SQL } from 'bun'
import { WAKE_CHANNEL } from './wake'

/**
 * Makes outbox row `seq` pending again, due at `now`, with no attempt spent, no lease and
 * trigger `manual` (its attempts are logged as such), and wakes the dispatchers in the same
 * statement (delivered when the caller's transaction commits), as the SQLite twin hints them.
 * The caller checks it is not in flight.
 */
export async function requeueManual(sql: SQL, seq: number, now: number): Promise<void> {
  await sql`WITH queued AS (
      UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = ${now}, lease_token = NULL, lease_expires_at = NULL,
        trigger = 'manual', updated_at = ${now} WHERE seq = ${seq} RETURNING 1)
    SELECT pg_notify(${WAKE_CHANNEL}, '') FROM queued`
}
