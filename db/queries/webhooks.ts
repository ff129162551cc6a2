/**
 * Webhooks and their delivery log, as core/webhooks/ manages them: the webhook rows, and async
 * operations over the outbox's one-statement files (db/outbox/*) for the log, redelivery,
 * recovery, test sends and a webhook's deletion.
 */
import { and, eq } from 'drizzle-orm'
import { useClient, type Conn, type Db, type Tx } from '../client'
import { deliveryLeftovers, webhookLeftovers } from '../outbox/drop-leftovers'
import { findDelivery, type FoundDelivery } from '../outbox/find-delivery'
import { insertTestDelivery, type TestDelivery } from '../outbox/insert-test-delivery'
import { listDeliveries, type LoggedDelivery, type LogQuery } from '../outbox/list-deliveries'
import { requeueManual } from '../outbox/requeue-manual'
import { failedInWindow, requeueFailed, type FailedWindow } from '../outbox/requeue-failed'
import { webhooks, type WebhookRow } from '../schema'

/** Stores a new webhook. */
export async function insertWebhook(conn: Conn, row: WebhookRow): Promise<void> {
  return await useClient(conn, () => {
    conn.insert(webhooks).values(row).run()
  })
}

/** A team's webhook, or undefined (also for another team's webhook). */
export async function webhookOf(conn: Conn, teamId: string, id: string): Promise<WebhookRow | undefined> {
  return await useClient(conn, () => conn.select().from(webhooks).where(and(eq(webhooks.teamId, teamId), eq(webhooks.id, id))).get())
}

/** A team's webhooks, oldest first. */
export async function webhooksOfTeam(conn: Conn, teamId: string): Promise<WebhookRow[]> {
  return await useClient(conn, () => conn.select().from(webhooks).where(eq(webhooks.teamId, teamId)).orderBy(webhooks.createdAt).all())
}

/** Writes a webhook's new values. */
export async function updateWebhookRow(conn: Conn, id: string, next: WebhookRow): Promise<void> {
  return await useClient(conn, () => {
    conn.update(webhooks).set(next).where(eq(webhooks.id, id)).run()
  })
}

/**
 * Removes up to `max` of a webhook's finished deliveries (not pending), with their attempts and
 * the stored bytes of events no other delivery points at, in one IMMEDIATE transaction. Returns
 * how many it removed.
 */
export async function deleteFinishedDeliveries(db: Db, webhookId: string, max: number): Promise<number> {
  return await useClient(db, (c) => {
    const rows = c.query<{ seq: number; event_id: string }, [string, number]>(
      `SELECT seq, event_id FROM outbox WHERE webhook_id = ? AND status <> 'pending' ORDER BY seq LIMIT ?`,
    )
    const dropRow = c.query('DELETE FROM outbox WHERE seq = ?')
    const leftovers = deliveryLeftovers(c)
    return c.transaction(() => {
      const found = rows.all(webhookId, max)
      // Read in this same write transaction: every row found is still there.
      for (const { seq, event_id } of found) {
        dropRow.run(seq)
        leftovers(seq, event_id)
      }
      return found.length
    }).immediate()
  })
}

/** Deletes a webhook with whatever is left of its deliveries (the outbox's cascade) and their leftovers, in `tx`. */
export async function deleteWebhookRow(tx: Tx, id: string): Promise<void> {
  return await useClient(tx, (c) => {
    webhookLeftovers(c, id)
    tx.delete(webhooks).where(eq(webhooks.id, id)).run()
  })
}

/** Stores a test send as a delivery with its one attempt (db/outbox/insert-test-delivery.ts). */
export async function storeTestDelivery(conn: Conn, d: TestDelivery): Promise<boolean> {
  return await useClient(conn, (c) => insertTestDelivery(c, d))
}

/** The delivery of `eventId` to a webhook, or null. */
export async function deliveryOf(conn: Conn, webhookId: string, eventId: string): Promise<FoundDelivery | null> {
  return await useClient(conn, (c) => findDelivery(c, webhookId, eventId))
}

/** One page of a webhook's delivery log (db/outbox/list-deliveries.ts). */
export async function deliveryLogPage(conn: Conn, q: LogQuery): Promise<LoggedDelivery[]> {
  return await useClient(conn, (c) => listDeliveries(c, q))
}

/**
 * Puts the delivery of `eventId` back to pending for a manual attempt, in one IMMEDIATE
 * transaction that finds it first: `missing` when there is none, `in-flight` while a lease on it
 * runs past `now`, else the requeued row.
 */
export async function requeueDelivery(db: Db, webhookId: string, eventId: string, now: number): Promise<{ outcome: 'missing' } | { outcome: 'in-flight' } | { outcome: 'requeued'; row: FoundDelivery }> {
  return await useClient(db, (c) => c.transaction(() => {
    const row = findDelivery(c, webhookId, eventId)
    if (!row) return { outcome: 'missing' as const }
    if (row.leaseExpiresAt !== null && row.leaseExpiresAt > now) return { outcome: 'in-flight' as const }
    requeueManual(c, row.seq, now)
    return { outcome: 'requeued' as const, row }
  }).immediate())
}

/** The seqs of a webhook's failed deliveries in a window (db/outbox/requeue-failed.ts). */
export async function failedDeliveries(conn: Conn, w: FailedWindow): Promise<number[]> {
  return await useClient(conn, (c) => failedInWindow(c, w))
}

/** Puts failed deliveries `seqs` back to pending for a manual attempt; how many went. */
export async function requeueFailedDeliveries(conn: Conn, webhookId: string, seqs: readonly number[], now: number): Promise<number> {
  return await useClient(conn, (c) => requeueFailed(c, webhookId, seqs, now))
}
