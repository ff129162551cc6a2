/**
 * Delivery log retention (README "Delivery log retention", `DELIVERY_LOG_RETENTION_DAYS`):
 * finished deliveries (delivered or failed for good) whose last change is older than the
 * cutoff leave the database with their attempts, and an event's stored bytes go with its last
 * delivery. Without it the outbox, the attempt log and the event bytes grow with every publish,
 * forever. Pending rows are never touched, whatever their age: they are work, not history.
 */
import type { Db, MayWrite } from '../db/client'

export interface PruneResult {
  /** Deliveries (outbox rows) removed, each with its attempts. */
  deliveries: number
  /** Stored event bytes removed (no delivery of the event was left). */
  events: number
  /** Coalesced site changes removed (their `site.changed` was written before the cutoff). */
  siteChanges: number
}

/** Rows read per step of the oldest-first scan. */
const SCAN_STEP = 500

/**
 * Removes up to `max` finished deliveries last changed before `cutoff` (ms), oldest first.
 * The scan walks the outbox in `seq` order (the order rows were written) and stops at the first
 * row written after the cutoff: nothing later can be older, so a run costs what it removes, not
 * the size of the table. Reads first without a lock; `mayWrite` is asked before the one write
 * transaction, which checks each row's state again (a redelivery may have made it pending).
 */
export function pruneDeliveries(db: Db, cutoff: number, max: number, mayWrite: MayWrite = () => true): PruneResult {
  const c = db.$client
  const scan = c.query<{ seq: number; event_id: string; status: string; updated_at: number; created_at: number }, [number, number]>(
    'SELECT seq, event_id, status, updated_at, created_at FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?',
  )
  const due: { seq: number; eventId: string }[] = []
  let after = 0
  scanning: while (due.length < max) {
    const rows = scan.all(after, SCAN_STEP)
    for (const row of rows) {
      if (row.created_at >= cutoff) break scanning
      if (row.status !== 'pending' && row.updated_at < cutoff) due.push({ seq: row.seq, eventId: row.event_id })
      if (due.length >= max) break scanning
    }
    if (rows.length < SCAN_STEP) break
    after = rows.at(-1)!.seq
  }
  const siteChangesDue = c.query('SELECT 1 FROM site_changes WHERE emitted_at < ? LIMIT 1').get(cutoff) !== null
  const result: PruneResult = { deliveries: 0, events: 0, siteChanges: 0 }
  if ((due.length === 0 && !siteChangesDue) || !mayWrite()) return result
  const dropRow = c.query(`DELETE FROM outbox WHERE seq = ? AND status <> 'pending' AND updated_at < ?`)
  const dropAttempts = c.query('DELETE FROM delivery_attempts WHERE outbox_seq = ?')
  const dropEvent = c.query('DELETE FROM outbox_events WHERE event_id = ?1 AND NOT EXISTS (SELECT 1 FROM outbox WHERE event_id = ?1)')
  c.transaction(() => {
    for (const { seq, eventId } of due) {
      if (dropRow.run(seq, cutoff).changes === 0) continue
      result.deliveries++
      dropAttempts.run(seq)
      result.events += dropEvent.run(eventId).changes
    }
    result.siteChanges = c.query('DELETE FROM site_changes WHERE emitted_at < ?').run(cutoff).changes
  }).immediate()
  return result
}
