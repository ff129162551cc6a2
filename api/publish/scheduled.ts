/**
 * Scheduled publishes, run by the dispatcher: each due schedule is claimed with a lease
 * (one `UPDATE ... RETURNING`), published from `<id>/scheduled` by the same `publishOne`,
 * stamped with the scheduling user and reported to webhooks with `userId: null`.
 */
import { and, eq, isNull, lt, lte, or } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { schedules } from '../../db/schema'
import type { Metrics } from '../metrics'
import { publishOne } from './service'

const LEASE_MS = 60_000

/** Publishes every schedule due at `now`. Returns the batch items, for logs and tests. */
export function runDueSchedules(db: Db, metrics: Metrics | null, now: number) {
  const token = crypto.randomUUID()
  const claimed = db
    .update(schedules)
    .set({ leaseToken: token, leaseExpiresAt: now + LEASE_MS })
    .where(and(lte(schedules.publishAt, now), or(isNull(schedules.leaseExpiresAt), lt(schedules.leaseExpiresAt, now))))
    .returning()
    .all()
  return claimed.map((s) => {
    const item = publishOne(db, metrics, {
      teamId: s.teamId, id: s.documentId, stampUserId: s.scheduledBy, actorUserId: null, source: 'worker', now: new Date(now),
    })
    db.delete(schedules)
      .where(and(eq(schedules.teamId, s.teamId), eq(schedules.documentId, s.documentId), eq(schedules.leaseToken, token)))
      .run()
    return item
  })
}
