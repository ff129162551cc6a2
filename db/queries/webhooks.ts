/**
 * Webhooks and their delivery log, as core/webhooks/ manages them: the webhook rows, and async
 * operations over the outbox's one-statement files (db/outbox/*) for the log, redelivery,
 * recovery, test sends and a webhook's deletion.
 */
import { and, eq } from 'drizzle-orm'
import { useClient, type SqliteConn as Conn, type SqliteDb as Db, type SqliteTx as Tx } from '../client'
import { byDialect } from '../dialect'
import * as pg from '../pg/queries/webhooks'
import { deliveryLeftovers, webhookLeftovers } from '../outbox/drop-leftovers'
import { findDelivery, type FoundDelivery } from '../outbox/find-delivery'
import { insertTestDelivery, type TestDelivery } from '../outbox/insert-test-delivery'
import { listDeliveries, type LoggedDelivery, type LogQuery } from '../outbox/list-deliveries'
import { requeueManual } from '../outbox/requeue-manual'
import { failedInWindow, requeueFailed, type FailedWindow } from '../outbox/requeue-failed'
import { webhooks, type WebhookRow } from '../schema'

/** Stores a new webhook. */
async function insertWebhookOnSqlite(conn: Conn, row: WebhookRow): Promise<void> {
  return await useClient(conn, () => {
    conn.insert(webhooks).values(row).run()
  })
}

/** A team's webhook, or undefined (also for another team's webhook). */
async function webhookOfOnSqlite(conn: Conn, teamId: string, id: string): Promise<WebhookRow | undefined> {
  return await useClient(conn, () => conn.select().from(webhooks).where(and(eq(webhooks.teamId, teamId), eq(webhooks.id, id))).get())
}

/** A team's webhooks, oldest first. */
async function webhooksOfTeamOnSqlite(conn: Conn, teamId: string): Promise<WebhookRow[]> {
  return await useClient(conn, () => conn.select().from(webhooks).where(eq(webhooks.teamId, teamId)).orderBy(webhooks.createdAt).all())
}

/** Writes a webhook's new values. */
async function updateWebhookRowOnSqlite(conn: Conn, id: string, next: WebhookRow): Promise<void> {
  return await useClient(conn, () => {
    conn.update(webhooks).set(next).where(eq(webhooks.id, id)).run()
  })
}

/**
 * Removes up to `max` of a webhook's finished deliveries (not pending), with their attempts and
 * the stored bytes of events no other delivery points at, in one IMMEDIATE transaction. Returns
 * how many it removed.
 */
async function deleteFinishedDeliveriesOnSqlite(db: Db, webhookId: string, max: number): Promise<number> {
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
async function deleteWebhookRowOnSqlite(tx: Tx, id: string): Promise<void> {
  return await useClient(tx, (c) => {
    webhookLeftovers(c, id)
    tx.delete(webhooks).where(eq(webhooks.id, id)).run()
  })
}

/** Stores a test send as a delivery with its one attempt (db/outbox/insert-test-delivery.ts). */
async function storeTestDeliveryOnSqlite(conn: Conn, d: TestDelivery): Promise<boolean> {
  return await useClient(conn, (c) => insertTestDelivery(c, d))
}

/** The delivery of `eventId` to a webhook, or null. */
async function deliveryOfOnSqlite(conn: Conn, webhookId: string, eventId: string): Promise<FoundDelivery | null> {
  return await useClient(conn, (c) => findDelivery(c, webhookId, eventId))
}

/** One page of a webhook's delivery log (db/outbox/list-deliveries.ts). */
async function deliveryLogPageOnSqlite(conn: Conn, q: LogQuery): Promise<LoggedDelivery[]> {
  return await useClient(conn, (c) => listDeliveries(c, q))
}

/**
 * Puts the delivery of `eventId` back to pending for a manual attempt, in one IMMEDIATE
 * transaction that finds it first: `missing` when there is none, `in-flight` while a lease on it
 * runs past `now`, else the requeued row.
 */
async function requeueDeliveryOnSqlite(db: Db, webhookId: string, eventId: string, now: number): Promise<{ outcome: 'missing' } | { outcome: 'in-flight' } | { outcome: 'requeued'; row: FoundDelivery }> {
  return await useClient(db, (c) => c.transaction(() => {
    const row = findDelivery(c, webhookId, eventId)
    if (!row) return { outcome: 'missing' as const }
    if (row.leaseExpiresAt !== null && row.leaseExpiresAt > now) return { outcome: 'in-flight' as const }
    requeueManual(c, row.seq, now)
    return { outcome: 'requeued' as const, row }
  }).immediate())
}

/** The seqs of a webhook's failed deliveries in a window (db/outbox/requeue-failed.ts). */
async function failedDeliveriesOnSqlite(conn: Conn, w: FailedWindow): Promise<number[]> {
  return await useClient(conn, (c) => failedInWindow(c, w))
}

/** Puts failed deliveries `seqs` back to pending for a manual attempt; how many went. */
async function requeueFailedDeliveriesOnSqlite(conn: Conn, webhookId: string, seqs: readonly number[], now: number): Promise<number> {
  return await useClient(conn, (c) => requeueFailed(c, webhookId, seqs, now))
}

export const insertWebhook = byDialect(insertWebhookOnSqlite, pg.insertWebhook)
export const webhookOf = byDialect(webhookOfOnSqlite, pg.webhookOf)
export const webhooksOfTeam = byDialect(webhooksOfTeamOnSqlite, pg.webhooksOfTeam)
export const updateWebhookRow = byDialect(updateWebhookRowOnSqlite, pg.updateWebhookRow)
export const deleteFinishedDeliveries = byDialect(deleteFinishedDeliveriesOnSqlite, pg.deleteFinishedDeliveries)
export const deleteWebhookRow = byDialect(deleteWebhookRowOnSqlite, pg.deleteWebhookRow)
export const storeTestDelivery = byDialect(storeTestDeliveryOnSqlite, pg.storeTestDelivery)
export const deliveryOf = byDialect(deliveryOfOnSqlite, pg.deliveryOf)
export const deliveryLogPage = byDialect(deliveryLogPageOnSqlite, pg.deliveryLogPage)
export const requeueDelivery = byDialect(requeueDeliveryOnSqlite, pg.requeueDelivery)
export const failedDeliveries = byDialect(failedDeliveriesOnSqlite, pg.failedDeliveries)
export const requeueFailedDeliveries = byDialect(requeueFailedDeliveriesOnSqlite, pg.requeueFailedDeliveries)
