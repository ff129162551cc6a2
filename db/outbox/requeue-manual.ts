/** Manual redeliver: a delivery goes back to pending with a fresh budget of attempts. */
import type { Database } from 'bun:sqlite'
import { wakeDispatchers } from './wake'

/**
 * Makes outbox row `seq` pending again, due at `now`, with no attempt spent, no lease and
 * trigger `manual` (its attempts are logged as such), and hints the dispatchers (db/outbox/wake.ts)
 * so it goes out now rather than at their next check. The caller checks it is not in flight.
 */
export function requeueManual(client: Database, seq: number, now: number): void {
  client.query(
    `UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = ?1, lease_token = NULL, lease_expires_at = NULL,
       trigger = 'manual', updated_at = ?1 WHERE seq = ?2`,
  ).run(now, seq)
  wakeDispatchers(client)
}
