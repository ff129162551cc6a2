/**
 * Scheduled publishes (table `schedules`): what scheduling, unscheduling, history and the
 * dispatcher's scheduled-publish worker (core/publish/scheduled.ts) read and write.
 */
import { and, eq, isNull, lt, lte, or } from 'drizzle-orm'
import { useClient, type SqliteConn as Conn } from '../client'
import { byDialect } from '../dialect'
import * as pg from '../pg/queries/schedules'
import { schedules } from '../schema'

export type ScheduleRow = typeof schedules.$inferSelect

const isDue = (now: number) => and(lte(schedules.publishAt, now), or(isNull(schedules.leaseExpiresAt), lt(schedules.leaseExpiresAt, now)))
const scheduleOf = (teamId: string, documentId: string) => and(eq(schedules.teamId, teamId), eq(schedules.documentId, documentId))

/** The schedule of a document, or undefined. */
async function getScheduleOnSqlite(conn: Conn, teamId: string, documentId: string): Promise<ScheduleRow | undefined> {
  return await useClient(conn, () => conn.select().from(schedules).where(scheduleOf(teamId, documentId)).get())
}

/** Whether a document has a schedule. */
async function hasScheduleOnSqlite(conn: Conn, teamId: string, documentId: string): Promise<boolean> {
  return await useClient(conn, () => conn.select({ id: schedules.documentId }).from(schedules).where(scheduleOf(teamId, documentId)).get() !== undefined)
}

/** Creates or replaces a document's schedule. */
async function upsertScheduleOnSqlite(conn: Conn, schedule: ScheduleRow): Promise<void> {
  return await useClient(conn, () => {
    conn.insert(schedules).values(schedule).onConflictDoUpdate({ target: [schedules.teamId, schedules.documentId], set: schedule }).run()
  })
}

/** Removes a document's schedule; whether there was one. */
async function deleteScheduleOnSqlite(conn: Conn, teamId: string, documentId: string): Promise<boolean> {
  return await useClient(conn, () => conn.delete(schedules).where(scheduleOf(teamId, documentId)).returning({ id: schedules.documentId }).all().length > 0)
}

/** The schedules due at `now` (not held back by a failure). */
async function dueSchedulesOnSqlite(conn: Conn, now: number): Promise<ScheduleRow[]> {
  return await useClient(conn, () => conn.select().from(schedules).where(isDue(now)).all())
}

/** A document's schedule if it is still due at `now`, or undefined. */
async function dueScheduleOfOnSqlite(conn: Conn, teamId: string, documentId: string, now: number): Promise<ScheduleRow | undefined> {
  return await useClient(conn, () => conn.select().from(schedules).where(and(scheduleOf(teamId, documentId), isDue(now))).get())
}

/** Removes a document's schedule (after its publish), whatever it holds. */
async function removeScheduleOnSqlite(conn: Conn, teamId: string, documentId: string): Promise<void> {
  return await useClient(conn, () => {
    conn.delete(schedules).where(scheduleOf(teamId, documentId)).run()
  })
}

/** Holds back the schedule `s` (if it was not rescheduled since: same publishAt) until `until`. */
async function holdBackScheduleOnSqlite(conn: Conn, s: Pick<ScheduleRow, 'teamId' | 'documentId' | 'publishAt'>, until: number): Promise<void> {
  return await useClient(conn, () => {
    conn.update(schedules).set({ leaseExpiresAt: until })
      .where(and(eq(schedules.teamId, s.teamId), eq(schedules.documentId, s.documentId), eq(schedules.publishAt, s.publishAt))).run()
  })
}

export const getSchedule = byDialect(getScheduleOnSqlite, pg.getSchedule)
export const hasSchedule = byDialect(hasScheduleOnSqlite, pg.hasSchedule)
export const upsertSchedule = byDialect(upsertScheduleOnSqlite, pg.upsertSchedule)
export const deleteSchedule = byDialect(deleteScheduleOnSqlite, pg.deleteSchedule)
export const dueSchedules = byDialect(dueSchedulesOnSqlite, pg.dueSchedules)
export const dueScheduleOf = byDialect(dueScheduleOfOnSqlite, pg.dueScheduleOf)
export const removeSchedule = byDialect(removeScheduleOnSqlite, pg.removeSchedule)
export const holdBackSchedule = byDialect(holdBackScheduleOnSqlite, pg.holdBackSchedule)
