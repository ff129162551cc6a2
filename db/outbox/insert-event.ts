/** Event insert: an event's bytes and one pending outbox row per webhook, in the caller's transaction. */
import type { Database } from 'bun:sqlite'
import { wakeDispatchers } from './wake'

export interface NewEvent {
  eventId: string
  teamId: string
  eventType: string
  /** The serialised payload, sent as it is by every attempt. */
  bytes: string
  /** The webhooks it goes to. */
  webhookIds: readonly string[]
  /** Due from (ms). */
  at: number
}

/**
 * Stores the event's bytes once and one pending outbox row per webhook pointing at them (an
 * event id already stored, or a row already there, is left as it is), and hints the
 * dispatchers once the caller's transaction committed (wake.ts). Returns the rows asked for.
 */
export function insertEvent(client: Database, e: NewEvent): number {
  if (e.webhookIds.length === 0) return 0
  client.query('INSERT INTO outbox_events (event_id, payload) VALUES (?, ?) ON CONFLICT DO NOTHING').run(e.eventId, e.bytes)
  const row = client.query(
    `INSERT INTO outbox (event_id, webhook_id, team_id, event_type, next_attempt_at, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?5) ON CONFLICT DO NOTHING`,
  )
  for (const id of e.webhookIds) row.run(e.eventId, id, e.teamId, e.eventType, e.at)
  wakeDispatchers(client)
  return e.webhookIds.length
}
