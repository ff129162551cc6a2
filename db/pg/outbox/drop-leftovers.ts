/**
 * What goes with a delivery (an outbox row) when it is removed, by the retention sweep
 * (prune.ts) or a webhook's deletion: its attempts, and its event's stored bytes when no other
 * delivery points at them. The twin of db/outbox/drop-leftovers.ts, and the one place on
 * PostgreSQL that says so.
 */
import type { SQL } from 'bun'

/**
 * The leftovers of the outbox rows a data-modifying CTE named `gone` (with `seq` and `event_id`)
 * deletes in the same statement, as two more CTEs: `gone_attempts` and `gone_events` (one row per
 * event whose bytes went). Every CTE of a statement reads the snapshot taken before it, where the
 * rows `gone` deletes are still there: so they are left out of "no other delivery points at it"
 * by hand.
 */
export function leftoversOf(gone: string): string {
  return `gone_attempts AS (DELETE FROM delivery_attempts WHERE outbox_seq IN (SELECT seq FROM ${gone})),
  gone_events AS (
    DELETE FROM outbox_events e WHERE e.event_id IN (SELECT event_id FROM ${gone})
      AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = e.event_id AND o.seq NOT IN (SELECT seq FROM ${gone}))
    RETURNING 1
  )`
}

/**
 * The returned function, called in a transaction right after the outbox row `seq` was deleted
 * (a statement of its own before, so this one sees the delete), removes its attempts and its
 * event's stored bytes when no other delivery points at them. Resolves to how many events'
 * bytes went (0 or 1). The same shape as on SQLite; prune.ts removes a whole batch in one
 * statement through `leftoversOf` instead.
 */
export function deliveryLeftovers(sql: SQL): (seq: number, eventId: string) => Promise<number> {
  return async (seq, eventId) => {
    const [row] = await sql`WITH gone_attempts AS (DELETE FROM delivery_attempts WHERE outbox_seq = ${seq}),
      gone_event AS (DELETE FROM outbox_events WHERE event_id = ${eventId} AND NOT EXISTS (SELECT 1 FROM outbox WHERE event_id = ${eventId}) RETURNING 1)
      SELECT count(*)::int AS n FROM gone_event`
    return row.n as number
  }
}

/**
 * The same for every delivery of webhook `webhookId` at once, set-based, in the caller's
 * transaction that then deletes the webhook (its outbox rows go by the foreign key cascade).
 * The webhook's outbox rows are locked first, by a statement of their own: a dispatcher
 * recording an attempt of one of them meanwhile either committed before (and its attempt row is
 * seen and deleted here) or waits for this transaction and then finds the row gone (and writes
 * no attempt). SQLite's single writer gives the same for free.
 */
export async function webhookLeftovers(tx: SQL, webhookId: string): Promise<void> {
  await tx`SELECT count(*) FROM (SELECT 1 FROM outbox WHERE webhook_id = ${webhookId} FOR UPDATE) locked`
  await tx`DELETE FROM outbox_events e WHERE e.event_id IN (SELECT event_id FROM outbox WHERE webhook_id = ${webhookId})
    AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = e.event_id AND o.webhook_id <> ${webhookId})`
  await tx`DELETE FROM delivery_attempts WHERE outbox_seq IN (SELECT seq FROM outbox WHERE webhook_id = ${webhookId})`
}
