/**
 * Prune on PostgreSQL: delivery log retention (docs/dispatcher.md "Retention"), the twin of
 * db/outbox/prune.ts. Finished deliveries (delivered or failed for good) whose last change is
 * older than the cutoff leave the database with their attempts, and an event's stored bytes go
 * with its last delivery. Pending rows are never touched, whatever their age.
 */
import type { SQL } from 'bun'
import type { PruneResult } from '../../outbox/prune'
import { leftoversOf } from './drop-leftovers'

/** Outbox rows one run reads at most, whatever it finds to remove (as on SQLite). */
const SCAN_ROWS = 2000

/**
 * One step of a sweep over the outbox in `seq` order, from `from` (exclusive): reads up to
 * SCAN_ROWS rows and removes up to `max` finished deliveries last changed before `cutoff` (ms),
 * and up to `max` site changes emitted before it; `next` says where the next step goes on, as on
 * SQLite. Without SQLite's `mayWrite`: there is no database-wide write lock to wait for. The
 * removal is ONE statement (so one transaction, whether `sql` is the pool or a transaction's
 * client), which checks each row's state again: a row a redelivery made pending meanwhile stays.
 */
export async function pruneDeliveries(sql: SQL, cutoff: number, max: number, from = 0): Promise<PruneResult> {
  // ORDER BY the table's column: a bare `seq` would name the float8 output column, which no index
  // serves, and every run would sort the whole outbox (docs/postgresql.md "The document store on PostgreSQL").
  const rows: { seq: number; event_id: string; status: string; updated_at: number }[] = await sql`
    SELECT seq::float8 AS seq, event_id, status, updated_at::float8 AS updated_at FROM outbox WHERE seq > ${from} ORDER BY outbox.seq LIMIT ${SCAN_ROWS}`
  const due: number[] = []
  let next: number | null = rows.length < SCAN_ROWS ? null : rows.at(-1)!.seq
  for (const row of rows) {
    if (row.status === 'pending' || row.updated_at >= cutoff) continue
    due.push(row.seq)
    if (due.length >= max) {
      next = row.seq
      break
    }
  }
  const siteChanges: { id: number }[] = await sql`SELECT id::float8 AS id FROM site_changes WHERE emitted_at < ${cutoff} ORDER BY site_changes.id LIMIT ${max}`
  if (siteChanges.length >= max) next ??= from // more to remove: the sweep is not over
  const result: PruneResult = { deliveries: 0, events: 0, siteChanges: 0, next }
  if (due.length === 0 && siteChanges.length === 0) return result
  const [counts] = await sql.unsafe(
    `WITH gone AS (
       DELETE FROM outbox WHERE seq = ANY($1::bigint[]) AND status <> 'pending' AND updated_at < $2 RETURNING seq, event_id
     ), ${leftoversOf('gone')},
     gone_site_changes AS (DELETE FROM site_changes WHERE id = ANY($3::bigint[]) AND emitted_at < $2 RETURNING 1)
     SELECT (SELECT count(*) FROM gone)::int AS deliveries, (SELECT count(*) FROM gone_events)::int AS events,
       (SELECT count(*) FROM gone_site_changes)::int AS "siteChanges"`,
    [sql.array(due, 'BIGINT'), cutoff, sql.array(siteChanges.map((s) => s.id), 'BIGINT')],
  )
  return { ...result, ...counts }
}
