/** Manual redeliver on PostgreSQL (twin of db/outbox/requeue-manual.ts): a delivery goes back to pending with a fresh budget of attempts. */
import type { SQL } from 'bun'

/**
 * Makes outbox row `seq` pending again, due at `now`, with no attempt spent, no lease and
 * trigger `manual` (its attempts are logged as such). The caller checks it is not in flight.
 */
export async function requeueManual(sql: SQL, seq: number, now: number): Promise<void> {
  await sql`UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = ${now}, lease_token = NULL, lease_expires_at = NULL,
    trigger = 'manual', updated_at = ${now} WHERE seq = ${seq}`
}
