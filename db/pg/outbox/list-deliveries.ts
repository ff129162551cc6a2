/** The delivery log on PostgreSQL (twin of db/outbox/list-deliveries.ts): one page of a webhook's deliveries, newest first, each with its attempts. */
import type { SQL } from 'bun'
import type { LoggedAttempt, LoggedDelivery, LogQuery } from '../../outbox/list-deliveries'

/**
 * The page's query, with only the terms of this page, as on SQLite: a generic plan cannot make
 * `$2 IS NULL OR ...` an index bound. PostgreSQL has no `INDEXED BY`; the planner reads an index
 * backwards from the cursor ((webhook_id, seq), or the primary key near the oldest rows) and
 * stops after the page, and finds the few pending or failed rows through the (status,
 * webhook_id, ...) index (test/db/pg/outbox/twins.test.ts plans each). ORDER BY names the table's
 * `seq`: a bare `seq` would be the float8 output column, which no index serves.
 */
export function pageQuery(q: LogQuery): { text: string; params: unknown[] } {
  const params: unknown[] = [q.webhookId, q.limit]
  const term = (column: string, op: string, value: unknown, type: string) => ` AND ${column} ${op} $${params.push(value)}::${type}`
  const where = `webhook_id = $1${q.status ? term('status', '=', q.status, 'text') : ''}${q.beforeSeq === undefined ? '' : term('seq', '<', q.beforeSeq, 'bigint')}`
  return {
    text: `SELECT seq::float8 AS "seq", event_id AS "eventId", event_type AS "eventType", status, created_at::float8 AS "createdAt"
      FROM outbox WHERE ${where} ORDER BY outbox.seq DESC LIMIT $2`,
    params,
  }
}

/**
 * The same page as on SQLite: newest first by `seq`, the cursor the previous page's last `seq`
 * (`beforeSeq`, exclusive), an optional status; the attempts of the page in one read through
 * `attempts_outbox`.
 */
export async function listDeliveries(sql: SQL, q: LogQuery): Promise<LoggedDelivery[]> {
  const page = pageQuery(q)
  const rows: Omit<LoggedDelivery, 'attempts'>[] = await sql.unsafe(page.text, page.params)
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
