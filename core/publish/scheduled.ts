/**
 * Scheduled publishes, run by the dispatcher: each due schedule is published from
 * `<id>/scheduled` by the same `publishOne`, stamped with the scheduling user and reported to
 * webhooks with `userId: null`, in one IMMEDIATE transaction that first reads the schedule
 * again and removes it with the publish. Two dispatchers on one file serialise on that
 * transaction (the second finds the schedule gone), so no lease is taken before publishing:
 * a dispatcher killed mid-run leaves every unpublished schedule due, published at the next
 * poll after a restart (a lease would have held them back until it expired).
 */
import { and, eq, isNull, lt, lte, or } from 'drizzle-orm'
import { isLocked, type Conn, type Db, type MayWrite } from '../../db/client'
import { withdrawnReason, type Capability } from '../auth'
import { schedules } from '../../db/schema'
import { publishOne, publishOrder } from './service'

/** A schedule whose publish failed is tried again after this long (`lease_expires_at` holds when). */
export const SCHEDULE_RETRY_MS = 60_000

export type DueSchedule = typeof schedules.$inferSelect

/**
 * Counts one scheduled publish's outcome on `conn`: `ok` inside the publish's transaction (so
 * the count is exactly the versions recorded), `error` after a failure. The dispatcher counts in
 * the database (`service_worker_publish_revisions`, read by the api's /metrics): it serves no
 * HTTP, so a count kept in its memory is seen by no one.
 */
export type CountScheduled = (conn: Conn, outcome: 'ok' | 'error') => void

/** What scheduling a publish needs; its author must still hold it when the schedule runs. */
export const SCHEDULE_REQUIRES: Capability[] = ['EditContent', 'ChangeLiveContent']

/**
 * Publishes every schedule due at `now`, each on its own: one that fails (its transaction rolled
 * back) is held back SCHEDULE_RETRY_MS, counted `error` and passed to `onError`, and the others
 * are still published. Returns the batch items, for logs and tests.
 *
 * `count` (null: nothing counted) gets each outcome: `ok` in one transaction with the publish
 * (publishOne's own transaction nests as a savepoint) and the schedule's removal.
 * `mayWrite` is asked before each publish: when another process holds the write lock, the rest
 * wait for the next poll rather than inside SQLite's busy timeout.
 */
export function runDueSchedules(db: Db, count: CountScheduled | null, now: number, mayWrite: MayWrite = () => true, onError: (s: DueSchedule, err: unknown) => void = () => {}) {
  const due = dueSchedules(db, now)
  // A page after its parent when both are due, as a batch publish orders them: published first,
  // the child's event would come while the parent is not live (no URL), and no later one names it.
  const byTeam = Map.groupBy(due, (s) => s.teamId)
  const ordered = [...byTeam].flatMap(([teamId, list]) => publishOrder(db, teamId, list.map((s) => s.documentId), 'worker').map((i) => list[i]!))
  const items = []
  for (const s of ordered) {
    if (!mayWrite()) break
    try {
      const item = publishDue(db, count, s, now)
      if (item) items.push(item)
    } catch (err) {
      // Another process took the write lock past the busy timeout: nothing failed, the rest wait for the next poll.
      if (isLocked(err)) break
      count?.(db, 'error')
      holdBack(db, s, now)
      onError(s, err)
    }
  }
  return items
}

const isDue = (now: number) => and(lte(schedules.publishAt, now), or(isNull(schedules.leaseExpiresAt), lt(schedules.leaseExpiresAt, now)))

/** The schedules due at `now` (a read: a poll with nothing due never takes the write lock). */
export function dueSchedules(db: Db, now: number): DueSchedule[] {
  return db.select().from(schedules).where(isDue(now)).all()
}

/**
 * Publishes schedule `s` if it is still due when its transaction starts: one removed, or moved
 * to a later time, by the api (or published by another dispatcher) since it was read is left
 * alone, and its new content is not published early. Returns null when skipped.
 */
export function publishDue(db: Db, count: CountScheduled | null, s: DueSchedule, now: number) {
  const mine = and(eq(schedules.teamId, s.teamId), eq(schedules.documentId, s.documentId))
  return db.transaction((tx) => {
    const current = tx.select().from(schedules).where(and(mine, isDue(now))).get()
    if (!current) return null
    // The publish is stamped with its author: one who may no longer publish here (token revoked,
    // left the team, capability taken away) publishes nothing. A failure like any other: held
    // back and tried again, so it goes out if the right is given back, and it stays in history
    // until someone who may publish schedules it again or unschedules it.
    const withdrawn = withdrawnReason(tx, current.teamId, current.scheduledBy, SCHEDULE_REQUIRES)
    if (withdrawn) throw new Error(`Not published: ${withdrawn}. Schedule it again as a user who may publish, or unschedule it.`)
    const item = publishOne(db, {
      teamId: current.teamId, id: current.documentId, stampUserId: current.scheduledBy, actorUserId: null, source: 'worker', now: new Date(now),
    })
    // A refusal (document gone, content type removed) records no version and counts nothing,
    // as for an api publish; the schedule goes either way.
    if (item.status === 0) count?.(tx, 'ok')
    tx.delete(schedules).where(mine).run()
    return item
  }, { behavior: 'immediate' })
}

/** After a failed publish (rolled back): not tried again for SCHEDULE_RETRY_MS unless rescheduled. */
function holdBack(db: Db, s: DueSchedule, now: number) {
  // Only the schedule that failed: a reschedule since (new publishAt) clears the hold itself.
  db.update(schedules).set({ leaseExpiresAt: now + SCHEDULE_RETRY_MS })
    .where(and(eq(schedules.teamId, s.teamId), eq(schedules.documentId, s.documentId), eq(schedules.publishAt, s.publishAt))).run()
}
