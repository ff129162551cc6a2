/** One delivery (outbox row) of a webhook, by its event id; the twin of db/outbox/find-delivery.ts. */
import type { SQL } from 'bun'
import type { FoundDelivery } from '../../outbox/find-delivery'

/** The delivery of event `eventId` to webhook `webhookId`, or null (never made, or pruned). */
export async function findDelivery(sql: SQL, webhookId: string, eventId: string): Promise<FoundDelivery | null> {
  // bigint columns come back from Bun.sql as strings: cast to float8, exact up to 2^53 (docs/postgresql.md).
  const [row] = await sql`SELECT seq::float8 AS "seq", event_type AS "eventType", lease_expires_at::float8 AS "leaseExpiresAt"
    FROM outbox WHERE webhook_id = ${webhookId} AND event_id = ${eventId}`
  return (row as FoundDelivery | undefined) ?? null
}
