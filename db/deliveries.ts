/**
 * The delivery leftovers of db/outbox/drop-leftovers.ts for callers holding a drizzle
 * connection (core/webhooks/service.ts): the same functions, given the connection's client.
 */
import type { Conn, Db } from './client'
import * as outbox from './outbox/drop-leftovers'

/** See db/outbox/drop-leftovers.ts `deliveryLeftovers`. */
export const deliveryLeftovers = (db: Db) => outbox.deliveryLeftovers(db.$client)

/** See db/outbox/drop-leftovers.ts `webhookLeftovers`. */
export const webhookLeftovers = (conn: Conn, webhookId: string) => outbox.webhookLeftovers(conn.$client, webhookId)
