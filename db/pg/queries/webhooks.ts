/**
 * Webhooks and their delivery log on PostgreSQL: the async twins of db/queries/webhooks.ts, on a
 * Bun.sql client, over the outbox twins of db/pg/outbox/.
 */
import type { SQL } from 'bun'
import type { FoundDelivery } from '../../outbox/find-delivery'
import type { TestDelivery } from '../../outbox/insert-test-delivery'
import type { LoggedDelivery, LogQuery } from '../../outbox/list-deliveries'
import type { FailedWindow } from '../../outbox/requeue-failed'
import type { WebhookRow } from '../../schema'
import { leftoversOf, webhookLeftovers } from '../outbox/drop-leftovers'
import { findDelivery } from '../outbox/find-delivery'
import { insertTestDelivery } from '../outbox/insert-test-delivery'
import { listDeliveries } from '../outbox/list-deliveries'
import { requeueManual } from '../outbox/requeue-manual'
import { failedInWindow, requeueFailed } from '../outbox/requeue-failed'
import { notifyDispatchers } from '../outbox/wake'

const COLUMNS = `id, team_id AS "teamId", label, provider, target, events::text AS events, secret, options::text AS options,
  created_at AS "createdAt", updated_at AS "updatedAt"`
const toRow = (r: Record<string, string>): WebhookRow => ({ ...r, events: JSON.parse(r.events!), options: JSON.parse(r.options!) }) as WebhookRow

/** Stores a new webhook. */
export async function insertWebhook(sql: SQL, row: WebhookRow): Promise<void> {
  await sql`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, options, created_at, updated_at)
    VALUES (${row.id}, ${row.teamId}, ${row.label}, ${row.provider}, ${row.target}, ${JSON.stringify(row.events)}::text::json, ${row.secret},
      ${JSON.stringify(row.options ?? {})}::text::json, ${row.createdAt}, ${row.updatedAt})`
}

/** A team's webhook, or undefined (also for another team's webhook). */
export async function webhookOf(sql: SQL, teamId: string, id: string): Promise<WebhookRow | undefined> {
  const [r] = await sql.unsafe(`SELECT ${COLUMNS} FROM webhooks WHERE team_id = $1 AND id = $2`, [teamId, id])
  return r ? toRow(r) : undefined
}

/**
 * A team's webhooks, oldest first. SQLite breaks ties of `created_at` in rowid (insertion)
 * order; here by id (a random UUID), so two webhooks created in the same millisecond may list
 * the other way round.
 */
export async function webhooksOfTeam(sql: SQL, teamId: string): Promise<WebhookRow[]> {
  return [...(await sql.unsafe(`SELECT ${COLUMNS} FROM webhooks WHERE team_id = $1 ORDER BY created_at, id`, [teamId]))].map(toRow)
}

/**
 * Writes a webhook's new values (every column of `next`), and wakes the dispatchers: a row they
 * claimed ahead must go out to the new target with the new secret, not as their cache read the
 * webhook (dispatcher/webhook-cache.ts; on SQLite `PRAGMA data_version` tells them).
 */
export async function updateWebhookRow(sql: SQL, id: string, next: WebhookRow): Promise<void> {
  await sql`UPDATE webhooks SET id = ${next.id}, team_id = ${next.teamId}, label = ${next.label}, provider = ${next.provider}, target = ${next.target},
      events = ${JSON.stringify(next.events)}::text::json, secret = ${next.secret}, options = ${JSON.stringify(next.options ?? {})}::text::json,
      created_at = ${next.createdAt}, updated_at = ${next.updatedAt}
    WHERE id = ${id}`
  await notifyDispatchers(sql)
}

/**
 * Removes up to `max` of a webhook's finished deliveries (not pending), oldest first, with their
 * attempts and the stored bytes of events no other delivery points at: ONE statement, so one
 * transaction (SQLite's IMMEDIATE one). The rows are picked `FOR UPDATE`: a manual redeliver
 * that made one pending meanwhile is waited for, the row checked again as it left it, and
 * skipped (a pending row stays). Returns how many it removed.
 */
export async function deleteFinishedDeliveries(sql: SQL, webhookId: string, max: number): Promise<number> {
  const [r] = await sql.unsafe(
    `WITH picked AS (
       SELECT seq FROM outbox WHERE webhook_id = $1 AND status <> 'pending' ORDER BY outbox.seq LIMIT $2 FOR UPDATE
     ),
     gone AS (DELETE FROM outbox WHERE seq IN (SELECT seq FROM picked) AND status <> 'pending' RETURNING seq, event_id),
     ${leftoversOf('gone')}
     SELECT count(*)::int AS n FROM gone`,
    [webhookId, max],
  )
  return r.n as number
}

/**
 * Deletes a webhook with whatever is left of its deliveries (the outbox's cascade) and their
 * leftovers, in the caller's transaction `tx`, and wakes the dispatchers when it commits: a row
 * they claimed ahead is then not sent (updateWebhookRow says why).
 */
export async function deleteWebhookRow(tx: SQL, id: string): Promise<void> {
  await webhookLeftovers(tx, id)
  await tx`DELETE FROM webhooks WHERE id = ${id}`
  await notifyDispatchers(tx)
}

/** Stores a test send as a delivery with its one attempt (db/pg/outbox/insert-test-delivery.ts). */
export async function storeTestDelivery(sql: SQL, d: TestDelivery): Promise<boolean> {
  return await insertTestDelivery(sql, d)
}

/** The delivery of `eventId` to a webhook, or null. */
export async function deliveryOf(sql: SQL, webhookId: string, eventId: string): Promise<FoundDelivery | null> {
  return await findDelivery(sql, webhookId, eventId)
}

/** One page of a webhook's delivery log (db/pg/outbox/list-deliveries.ts). */
export async function deliveryLogPage(sql: SQL, q: LogQuery): Promise<LoggedDelivery[]> {
  return await listDeliveries(sql, q)
}

/**
 * Puts the delivery of `eventId` back to pending for a manual attempt, in one transaction that
 * finds it first: `missing` when there is none, `in-flight` while a lease on it runs past `now`,
 * else the requeued row. SQLite's IMMEDIATE transaction kept a dispatcher's claim out between the
 * check and the write; here the row is read `FOR UPDATE` (a claim, `FOR UPDATE SKIP LOCKED`,
 * passes it by until this commits; one already claiming it is waited for and its lease seen).
 */
export async function requeueDelivery(sql: SQL, webhookId: string, eventId: string, now: number): Promise<{ outcome: 'missing' } | { outcome: 'in-flight' } | { outcome: 'requeued'; row: FoundDelivery }> {
  return await sql.begin(async (tx) => {
    const [row] = await tx`SELECT seq::float8 AS "seq", event_type AS "eventType", lease_expires_at::float8 AS "leaseExpiresAt"
      FROM outbox WHERE webhook_id = ${webhookId} AND event_id = ${eventId} FOR UPDATE`
    if (!row) return { outcome: 'missing' as const }
    if (row.leaseExpiresAt !== null && row.leaseExpiresAt > now) return { outcome: 'in-flight' as const }
    await requeueManual(tx, row.seq, now)
    return { outcome: 'requeued' as const, row: row as FoundDelivery }
  })
}

/** The seqs of a webhook's failed deliveries in a window (db/pg/outbox/requeue-failed.ts). */
export async function failedDeliveries(sql: SQL, w: FailedWindow): Promise<number[]> {
  return await failedInWindow(sql, w)
}

/** Puts failed deliveries `seqs` back to pending for a manual attempt; how many went (one statement). */
export async function requeueFailedDeliveries(sql: SQL, webhookId: string, seqs: readonly number[], now: number): Promise<number> {
  return await requeueFailed(sql, webhookId, seqs, now)
}
