/**
 * Scheduled publishes (table `schedules`) on PostgreSQL: the async twins of db/queries/schedules.ts,
 * on a Bun.sql client. Millisecond times are bigint, which raw Bun.sql returns as strings: cast to
 * float8 (exact up to 2^53).
 */
import type { SQL } from 'bun'
import type { ScheduleRow } from '../../queries/schedules'

export type { ScheduleRow } from '../../queries/schedules'

const COLUMNS = `team_id AS "teamId", document_id AS "documentId", publish_at::float8 AS "publishAt", scheduled_by AS "scheduledBy",
  lease_token AS "leaseToken", lease_expires_at::float8 AS "leaseExpiresAt"`
const DUE = 'publish_at <= $1 AND (lease_expires_at IS NULL OR lease_expires_at < $1)'

/** The schedule of a document, or undefined. */
export async function getSchedule(sql: SQL, teamId: string, documentId: string): Promise<ScheduleRow | undefined> {
  const [r] = await sql.unsafe(`SELECT ${COLUMNS} FROM schedules WHERE team_id = $1 AND document_id = $2`, [teamId, documentId])
  return r
}

/** Whether a document has a schedule. */
export async function hasSchedule(sql: SQL, teamId: string, documentId: string): Promise<boolean> {
  return (await sql`SELECT 1 FROM schedules WHERE team_id = ${teamId} AND document_id = ${documentId}`).length > 0
}

/** Creates or replaces a document's schedule (one upsert). */
export async function upsertSchedule(sql: SQL, s: ScheduleRow): Promise<void> {
  await sql`INSERT INTO schedules (team_id, document_id, publish_at, scheduled_by, lease_token, lease_expires_at)
    VALUES (${s.teamId}, ${s.documentId}, ${s.publishAt}, ${s.scheduledBy}, ${s.leaseToken ?? null}::text, ${s.leaseExpiresAt ?? null}::bigint)
    ON CONFLICT (team_id, document_id) DO UPDATE SET publish_at = EXCLUDED.publish_at, scheduled_by = EXCLUDED.scheduled_by,
      lease_token = EXCLUDED.lease_token, lease_expires_at = EXCLUDED.lease_expires_at`
}

/** Removes a document's schedule; whether there was one. */
export async function deleteSchedule(sql: SQL, teamId: string, documentId: string): Promise<boolean> {
  return (await sql`DELETE FROM schedules WHERE team_id = ${teamId} AND document_id = ${documentId} RETURNING 1`).length > 0
}

/**
 * The schedules due at `now` (not held back by a failure). SQLite reads them through
 * `schedules_due` (publish_at), ties in rowid (insertion) order; PostgreSQL has no rowid, so ties
 * are broken by (team_id, document_id). The dispatcher publishes each through `dueScheduleOf`
 * in its own transaction, so the order among equal times changes no outcome.
 */
export async function dueSchedules(sql: SQL, now: number): Promise<ScheduleRow[]> {
  return [...(await sql.unsafe(`SELECT ${COLUMNS} FROM schedules WHERE ${DUE} ORDER BY publish_at, team_id, document_id`, [now]))]
}

/**
 * A document's schedule if it is still due at `now`, or undefined; run it in the transaction that
 * then publishes and removes it (core/publish/scheduled.ts `publishDue`). On SQLite that
 * transaction is IMMEDIATE: the write lock keeps a second dispatcher out until this one removed
 * the schedule. Here the row is read `FOR UPDATE`: a second dispatcher's read waits for this
 * transaction, then reads the row again as committed, finds it gone (or moved to a later time),
 * and publishes nothing. So a schedule is published once however many dispatchers run.
 */
export async function dueScheduleOf(tx: SQL, teamId: string, documentId: string, now: number): Promise<ScheduleRow | undefined> {
  const [r] = await tx.unsafe(`SELECT ${COLUMNS} FROM schedules WHERE team_id = $2 AND document_id = $3 AND ${DUE} FOR UPDATE`, [now, teamId, documentId])
  return r
}

/** Removes a document's schedule (after its publish), whatever it holds. */
export async function removeSchedule(sql: SQL, teamId: string, documentId: string): Promise<void> {
  await sql`DELETE FROM schedules WHERE team_id = ${teamId} AND document_id = ${documentId}`
}

/** Holds back the schedule `s` (if it was not rescheduled since: same publishAt) until `until`; one statement. */
export async function holdBackSchedule(sql: SQL, s: Pick<ScheduleRow, 'teamId' | 'documentId' | 'publishAt'>, until: number): Promise<void> {
  await sql`UPDATE schedules SET lease_expires_at = ${until} WHERE team_id = ${s.teamId} AND document_id = ${s.documentId} AND publish_at = ${s.publishAt}`
}
