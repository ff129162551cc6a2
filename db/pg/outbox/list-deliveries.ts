/** The delivery log on PostgreSQL (twin of db/outbox/list-deliveries.ts): one page of a webhook's deliveries, newest first, each with its attempts. */
import type { SQL } from 'bun'
import type { LoggedAttempt, LoggedDelivery, LogQuery } from '../../outbox/list-deliveries'

/**
 * The same page as on SQLite: newest first by `seq`, the cursor the previous page's last `seq`
 * (`beforeSeq`, exclusive), an optional status. PostgreSQL has no `INDEXED BY`: the planner picks
 * (webhook_id, seq) walked backwards for a page of all rows or of delivered ones, and the
 * (status, webhook_id, ...) index for the few pending or failed rows
 * (test/db/pg/outbox/more-ops.test.ts checks both plans). The attempts of the page come in one
 * read through `attempts_outbox`.
 */
export async function listDeliveries(sql: SQL, q: LogQuery): Promise<LoggedDelivery[]> {
  // Only the terms of this page, as on SQLite: a generic plan cannot make `$2 IS NULL OR ...` an index bound.
  const params: unknown[] = [q.webhookId, q.limit]
  const term = (column: string, op: string, value: unknown, type: string) => ` AND ${column} ${op} $${params.push(value)}::${type}`
  const where = `webhook_id = $1${q.status ? term('status', '=', q.status, 'text') : ''}${q.beforeSeq === undefined ? '' : term('seq', '<', q.beforeSeq, 'bigint')}`
  const rows: Omit<LoggedDelivery, 'attempts'>[] = await sql.unsafe(
    `SELECT seq::float8 AS "seq", event_id AS "eventId", event_type AS "eventType", status, created_at::float8 AS "createdAt"
     FROM outbox WHERE ${where} ORDER BY seq DESC LIMIT $2`,
    params,
  )
  if (rows.length === 0) return []
  // With `outboxSeq` in each attempt, as SQLite's page gives them.
  const attempts: (LoggedAttempt & { outboxSeq: number })[] = await sql.unsafe(
    `SELECT outbox_seq::float8 AS "outboxSeq", attempt, trigger, started_at::float8 AS "startedAt", status_code AS "statusCode", error,
       duration_ms AS "durationMs", response_body AS "responseBody", next_attempt_at::float8 AS "nextAttemptAt"
     FROM delivery_attempts WHERE outbox_seq = ANY($1::bigint[]) ORDER BY id`,
    [sql.array(rows.map((r) => r.seq), 'BIGINT')],
  )
  const bySeq = Map.groupBy(attempts, (a) => a.outboxSeq) // in id order within each
  return rows.map((r) => ({ ...r, attempts: bySeq.get(r.seq) ?? [] }))
}
