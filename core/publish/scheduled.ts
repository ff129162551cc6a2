/**
 * Scheduled publishes, run by the dispatcher: each due schedule is published from
 * `<id>/scheduled` by the same `publishOne`, stamped with the scheduling user and reported to
 * webhooks with `userId: null`, in one IMMEDIATE transaction that first reads the schedule
 * again and removes it with the publish. Two dispatchers on one file serialise on that
 * transaction (the second finds the schedule gone), so no lease is taken before publishing:
 * a dispatcher killed mid-run leaves every unpublished schedule due, published at the next
 * poll after a restart (a lease would have held them back until it expired).
 */
import { isBusy, type Conn, type Db, type MayWrite } from '../../db/client'
import { withdrawnReason, type Capability } from '../auth'
import { dueScheduleOf, dueSchedules as readDueSchedules, holdBackSchedule, removeSchedule, type ScheduleRow } from '../../db/queries/schedules'
import { publishOne, publishOrder } from './service'

/** A schedule whose publish failed is tried again after this long (`lease_expires_at` holds when). */
export const SCHEDULE_RETRY_MS = 60_000

export type DueSchedule = ScheduleRow

/**
 * Counts one scheduled publish's outcome on `conn`: `ok` inside the publish's transaction (so
 * the count is exactly the versions recorded), `error` after a failure. The dispatcher counts in
 * the database (`service_worker_publish_revisions`, read by the api's /metrics): it serves no
 * HTTP, so a count kept in its memory is seen by no one.
 */
export type CountScheduled = (conn: Conn, outcome: 'ok' | 'error') => Promise<void>

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
export async function runDueSchedules(db: Db, count: CountScheduled | null, now: number, mayWrite: MayWrite = () => true, onError: (s: DueSchedule, err: unknown) => void = () => {}) {
  const due = await dueSchedules(db, now)
  // A page after its parent when both are due, as a batch publish orders them: published first,
  // the child's event would come while the parent is not live (no URL), and no later one names it.
  const byTeam = Map.groupBy(due, (s) => s.teamId)
  const ordered: DueSchedule[] = []
  for (const [teamId, list] of byTeam) for (const i of await publishOrder(db, teamId, list.map((s) => s.documentId), 'worker')) ordered.push(list[i]!)
  const items = []
  for (const s of ordered) {
    if (!mayWrite()) break
    try {
      const item = await publishDue(db, count, s, now)
      if (item) items.push(item)
    } catch (err) {
      // Another process took the write lock past the busy timeout: nothing failed, the rest wait for the next poll.
      if (isBusy(err)) break
      await count?.(db, 'error')
      await holdBack(db, s, now)
      onError(s, err)
    }
  }
  return items
}

/** The schedules due at `now` (a read: a poll with nothing due never takes the write lock). */
export async function dueSchedules(db: Db, now: number): Promise<DueSchedule[]> {
  return await readDueSchedules(db, now)
}

/**
 * Publishes schedule `s` if it is still due when its transaction starts: one removed, or moved
 * to a later time, by the api (or published by another dispatcher) since it was read is left
 * alone, and its new content is not published early. Returns null when skipped.
 */
export async function publishDue(db: Db, count: CountScheduled | null, s: DueSchedule, now: number) {
  return await db.transaction(async (tx) => {
    const current = await dueScheduleOf(tx, s.teamId, s.documentId, now)
    if (!current) return null
    // The publish is stamped with its author: one who may no longer publish here (token revoked,
    // left the team, capability taken away) publishes nothing. A failure like any other: held
    // back and tried again, so it goes out if the right is given back, and it stays in history
    // until someone who may publish schedules it again or unschedules it.
    const withdrawn = await withdrawnReason(tx, current.teamId, current.scheduledBy, SCHEDULE_REQUIRES)
    if (withdrawn) throw new Error(`Not published: ${withdrawn}. Schedule it again as a user who may publish, or unschedule it.`)
    // `tx`, not `db`: on PostgreSQL `db` is the pool, outside this transaction (and its schedule row lock).
    const item = await publishOne(tx, {
      teamId: current.teamId, id: current.documentId, stampUserId: current.scheduledBy, actorUserId: null, source: 'worker', now: new Date(now),
    })
    // A refusal (document gone, content type removed) records no version and counts nothing,
    // as for an api publish; the schedule goes either way.
    if (item.status === 0) await count?.(tx, 'ok')
    await removeSchedule(tx, s.teamId, s.documentId)
    return item
  }, { behavior: 'immediate' })
}

/** After a failed publish (rolled back): not tried again for SCHEDULE_RETRY_MS unless rescheduled. */
async function holdBack(db: Db, s: DueSchedule, now: number): Promise<void> {
  // Only the schedule that failed: a reschedule since (new publishAt) clears the hold itself.
  return await holdBackSchedule(db, s, now + SCHEDULE_RETRY_MS)
}
