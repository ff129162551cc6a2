/** Event insert on PostgreSQL (twin of db/outbox/insert-event.ts): an event's bytes and one pending outbox row per webhook, in the caller's transaction. */
import type { SQL } from 'bun'
import type { NewEvent } from '../../outbox/insert-event'
import { notifyDispatchers } from './wake'

/**
 * Stores the event's bytes once and one pending outbox row per webhook pointing at them (an
 * event id already stored, or a row already there, is left as it is), and wakes the
 * dispatchers when the caller's transaction commits (wake.ts). Run it on the transaction's
 * client (`sql.begin(tx => ...)`): on a bare pool each statement commits on its own.
 * Returns the rows asked for.
 */
export async function insertEvent(tx: SQL, e: NewEvent): Promise<number> {
  if (e.webhookIds.length === 0) return 0
  await tx`INSERT INTO outbox_events (event_id, payload) VALUES (${e.eventId}, ${e.bytes}) ON CONFLICT DO NOTHING`
  await tx.unsafe(
    `INSERT INTO outbox (event_id, webhook_id, team_id, event_type, next_attempt_at, created_at, updated_at)
     SELECT $1, w, $2, $3, $4, $4, $4 FROM unnest($5::text[]) AS w ON CONFLICT DO NOTHING`,
    [e.eventId, e.teamId, e.eventType, e.at, tx.array([...e.webhookIds], 'TEXT')],
  )
  await notifyDispatchers(tx)
  return e.webhookIds.length
}
