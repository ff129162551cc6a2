/**
 * What goes with a delivery (an outbox row) when it is removed, by the retention sweep
 * (prune.ts) or a webhook's deletion (core/webhooks/service.ts): its attempts, and its event's
 * stored bytes when no other delivery points at them. The one place that says so.
 */
import type { Database } from 'bun:sqlite'

/**
 * Prepares the statements once; the returned function, called inside a write transaction right
 * after the outbox row `seq` was deleted, removes its attempts and its event's stored bytes
 * when no other delivery points at them. Returns how many events' bytes went (0 or 1).
 */
export function deliveryLeftovers(client: Database): (seq: number, eventId: string) => number {
  const attempts = client.query('DELETE FROM delivery_attempts WHERE outbox_seq = ?')
  const event = client.query('DELETE FROM outbox_events WHERE event_id = ?1 AND NOT EXISTS (SELECT 1 FROM outbox WHERE event_id = ?1)')
  return (seq, eventId) => {
    attempts.run(seq)
    return event.run(eventId).changes
  }
}

/**
 * The same for every delivery of webhook `webhookId` at once, set-based, inside the write
 * transaction that then deletes the webhook (its outbox rows go by the foreign key cascade):
 * before the cascade, since the attempts are found through the outbox rows (attempts_outbox).
 */
export function webhookLeftovers(client: Database, webhookId: string): void {
  client.query(`DELETE FROM outbox_events WHERE event_id IN (SELECT event_id FROM outbox WHERE webhook_id = ?1)
    AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = outbox_events.event_id AND o.webhook_id <> ?1)`).run(webhookId)
  client.query('DELETE FROM delivery_attempts WHERE outbox_seq IN (SELECT seq FROM outbox WHERE webhook_id = ?)').run(webhookId)
}
