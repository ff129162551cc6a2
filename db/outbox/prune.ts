/**
 * Prune: delivery log retention (docs/dispatcher.md "Retention", `DELIVERY_LOG_RETENTION_DAYS`):
 * finished deliveries (delivered or failed for good) whose last change is older than the
 * cutoff leave the database with their attempts, and an event's stored bytes go with its last
 * delivery. Without it the outbox, the attempt log and the event bytes grow with every publish,
 * forever. Pending rows are never touched, whatever their age: they are work, not history.
 */
import type { Database } from 'bun:sqlite'
import type { MayWrite } from '../client'
import { deliveryLeftovers } from './drop-leftovers'

export interface PruneResult {
  /** Deliveries (outbox rows) removed, each with its attempts. */
  deliveries: number
  /** Stored event bytes removed (no delivery of the event was left). */
  events: number
  /** Coalesced site changes removed (their `site.changed` was written before the cutoff). */
  siteChanges: number
  /** Where the next run goes on (an outbox `seq`), or null: this run reached the end of the outbox. */
  next: number | null
}

/** Outbox rows one run reads at most (a millisecond or two), whatever it finds to remove. */
const SCAN_ROWS = 2000

/**
 * One step of a sweep over the outbox in `seq` order, from `from` (exclusive): reads up to
 * SCAN_ROWS rows and removes up to `max` finished deliveries last changed before `cutoff` (ms),
 * and up to `max` site changes emitted before it. A sweep visits every row, whatever order the
 * timestamps are in (a clock that stepped back writes newer rows with older times), and a step
 * costs a bounded read. Reads first without a lock; `mayWrite` is asked before the one write
 * transaction, which checks each row's state again (a redelivery may have made it pending);
 * when it says no, nothing is written and `next` is `from`, to be tried again.
 */
export function pruneDeliveries(c: Database, cutoff: number, max: number, mayWrite: MayWrite = () => true, from = 0): PruneResult {
  const rows = c.query<{ seq: number; event_id: string; status: string; updated_at: number }, [number, number]>(
    'SELECT seq, event_id, status, updated_at FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?',
  ).all(from, SCAN_ROWS)
  const due: { seq: number; eventId: string }[] = []
  let next: number | null = rows.length < SCAN_ROWS ? null : rows.at(-1)!.seq
  for (const row of rows) {
    if (row.status === 'pending' || row.updated_at >= cutoff) continue
    due.push({ seq: row.seq, eventId: row.event_id })
    if (due.length >= max) {
      next = row.seq
      break
    }
  }
  const siteChanges = c.query<{ id: number }, [number, number]>('SELECT id FROM site_changes WHERE emitted_at < ? ORDER BY id LIMIT ?').all(cutoff, max)
  if (siteChanges.length >= max) next ??= from // more to remove: the sweep is not over
  const result: PruneResult = { deliveries: 0, events: 0, siteChanges: 0, next }
  if (due.length === 0 && siteChanges.length === 0) return result
  if (!mayWrite()) return { ...result, next: from }
  const dropRow = c.query(`DELETE FROM outbox WHERE seq = ? AND status <> 'pending' AND updated_at < ?`)
  const leftovers = deliveryLeftovers(c)
  const dropSiteChange = c.query('DELETE FROM site_changes WHERE id = ? AND emitted_at < ?')
  c.transaction(() => {
    for (const { seq, eventId } of due) {
      if (dropRow.run(seq, cutoff).changes === 0) continue
      result.deliveries++
      result.events += leftovers(seq, eventId)
    }
    for (const { id } of siteChanges) result.siteChanges += dropSiteChange.run(id, cutoff).changes
  }).immediate()
  return result
}
