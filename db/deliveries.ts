/**
 * What goes with a delivery (an outbox row) when it is removed, by the retention sweep
 * (dispatcher/prune.ts) or a webhook's deletion (api/webhooks/service.ts).
 */
import type { Db } from './client'

/**
 * Prepares the statements once; the returned function, called inside a write transaction right
 * after the outbox row `seq` was deleted, removes its attempts and its event's stored bytes
 * when no other delivery points at them. Returns how many events' bytes went (0 or 1).
 */
export function deliveryLeftovers(db: Db): (seq: number, eventId: string) => number {
  const attempts = db.$client.query('DELETE FROM delivery_attempts WHERE outbox_seq = ?')
  const event = db.$client.query('DELETE FROM outbox_events WHERE event_id = ?1 AND NOT EXISTS (SELECT 1 FROM outbox WHERE event_id = ?1)')
  return (seq, eventId) => {
    attempts.run(seq)
    return event.run(eventId).changes
  }
}
