/** One delivery (outbox row) of a webhook, by its event id. */
import type { Database } from 'bun:sqlite'

export interface FoundDelivery {
  seq: number
  eventType: string
  leaseExpiresAt: number | null
}

/** The delivery of event `eventId` to webhook `webhookId`, or null (never made, or pruned). */
export function findDelivery(client: Database, webhookId: string, eventId: string): FoundDelivery | null {
  return client.query<FoundDelivery, [string, string]>(
    'SELECT seq, event_type AS eventType, lease_expires_at AS leaseExpiresAt FROM outbox WHERE webhook_id = ? AND event_id = ?',
  ).get(webhookId, eventId)
}
