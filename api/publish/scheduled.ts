/**
 * Scheduled publishes, run by the dispatcher: each due schedule is claimed with a lease
 * (one `UPDATE ... RETURNING`), published from `<id>/scheduled` by the same `publishOne`,
 * stamped with the scheduling user and reported to webhooks with `userId: null`.
 */
import { and, eq, isNull, lt, lte, or } from 'drizzle-orm'
import type { Db, MayWrite } from '../../db/client'
import { schedules } from '../../db/schema'
import { countPersisted, WORKER_PUBLISH_REVISIONS, type Metrics } from '../metrics'
import { publishOne, publishOrder } from './service'

const LEASE_MS = 60_000

/**
 * Publishes every schedule due at `now`. Returns the batch items, for logs and tests.
 *
 * Each outcome is counted in the database (`service_worker_publish_revisions`, read by the
 * api's /metrics): the dispatcher serves no HTTP, so a count kept in its memory is seen by no
 * one. `ok` commits in one transaction with the publish (publishOne's own transaction nests as
 * a savepoint) and the schedule's removal, so the count is exactly the versions recorded.
 */
export function runDueSchedules(db: Db, metrics: Metrics | null, now: number, mayWrite: MayWrite = () => true) {
  const claim = claimDueSchedules(db, now, mayWrite)
  // A page after its parent when both are due, as a batch publish orders them: published first,
  // the child's event would come while the parent is not live (no URL), and no later one names it.
  const byTeam = Map.groupBy(claim.schedules, (s) => s.teamId)
  const ordered = [...byTeam].flatMap(([teamId, due]) => publishOrder(db, teamId, due.map((s) => s.documentId), 'worker').map((i) => due[i]!))
  return ordered.flatMap((s) => publishClaimed(db, metrics, s, claim.token, now) ?? [])
}

export type ClaimedSchedule = typeof schedules.$inferSelect

/** Leases every schedule due at `now` (one `UPDATE ... RETURNING`); none when nothing is due or `mayWrite` says no. */
export function claimDueSchedules(db: Db, now: number, mayWrite: MayWrite = () => true): { token: string; schedules: ClaimedSchedule[] } {
  const token = crypto.randomUUID()
  // A read first: a poll with nothing due never takes the write lock the api's writers need.
  const due = and(lte(schedules.publishAt, now), or(isNull(schedules.leaseExpiresAt), lt(schedules.leaseExpiresAt, now)))
  if (!db.select({ one: schedules.teamId }).from(schedules).where(due).limit(1).get() || !mayWrite()) return { token, schedules: [] }
  const claimed = db.update(schedules).set({ leaseToken: token, leaseExpiresAt: now + LEASE_MS }).where(due).returning().all()
  return { token, schedules: claimed }
}

/**
 * Publishes one claimed schedule, if it is still the one claimed: a reschedule (or a new
 * schedule) committed by the api since the claim clears the lease, and then its new content
 * is not published early; it waits for its own time. Returns null when skipped.
 */
export function publishClaimed(db: Db, metrics: Metrics | null, s: ClaimedSchedule, token: string, now: number) {
  const input = {
    teamId: s.teamId, id: s.documentId, stampUserId: s.scheduledBy, actorUserId: null, source: 'worker', now: new Date(now),
  } as const
  const ours = and(eq(schedules.teamId, s.teamId), eq(schedules.documentId, s.documentId), eq(schedules.leaseToken, token))
  try {
    return db.transaction((tx) => {
      if (!tx.select({ one: schedules.teamId }).from(schedules).where(ours).get()) return null
      const item = publishOne(db, metrics, input)
      // A refusal (document gone, content type removed) records no version and counts nothing,
      // as for an api publish; the schedule goes either way.
      if (item.status === 0) countPersisted(tx, WORKER_PUBLISH_REVISIONS, 'ok')
      tx.delete(schedules).where(ours).run()
      return item
    }, { behavior: 'immediate' })
  } catch (e) {
    // The publish rolled back; the schedule keeps its lease and is tried again when it expires.
    countPersisted(db, WORKER_PUBLISH_REVISIONS, 'error')
    throw e
  }
}
