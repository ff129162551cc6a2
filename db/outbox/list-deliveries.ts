/** The delivery log: one page of a webhook's deliveries, newest first, each with its attempts. */
import type { Database } from 'bun:sqlite'
import type { OutboxRow } from '../schema'

export interface LogQuery {
  webhookId: string
  limit: number
  status?: OutboxRow['status']
  /** Only deliveries older than this outbox seq (the previous page's last). */
  beforeSeq?: number
}

export interface LoggedAttempt {
  attempt: number
  trigger: OutboxRow['trigger']
  startedAt: number
  statusCode: number | null
  error: string | null
  durationMs: number
  responseBody: string | null
  nextAttemptAt: number | null
}

export interface LoggedDelivery {
  seq: number
  eventId: string
  eventType: string
  status: OutboxRow['status']
  createdAt: number
  /** In the order they were made. */
  attempts: LoggedAttempt[]
}

/**
 * Read through the outbox's (webhook_id, seq) index and the attempts' (outbox_seq) index, so a
 * page costs the same however many deliveries the file holds. Pending and failed rows are few
 * (each is a retry or a failure), so those pages walk the (status, webhook_id, ...) index and
 * sort what they find; every other page walks (webhook_id, seq) newest first. A status filter
 * on the latter would read every delivered row of a healthy webhook to find no failure.
 */
export function listDeliveries(client: Database, q: LogQuery): LoggedDelivery[] {
  const rare = q.status === 'pending' || q.status === 'failed'
  const rows = client.query<Omit<LoggedDelivery, 'attempts'>, Record<string, string | number>>(
    `SELECT seq, event_id AS eventId, event_type AS eventType, status, created_at AS createdAt
     FROM outbox INDEXED BY ${rare ? 'outbox_webhook_due' : 'outbox_webhook_seq'}
     WHERE webhook_id = $webhook ${q.status ? 'AND status = $status' : ''} ${q.beforeSeq === undefined ? '' : 'AND seq < $before'}
     ORDER BY seq DESC LIMIT $limit`,
  ).all({ webhook: q.webhookId, limit: q.limit, ...(q.status ? { status: q.status } : {}), ...(q.beforeSeq === undefined ? {} : { before: q.beforeSeq }) })
  if (rows.length === 0) return []
  const attempts = client.query<LoggedAttempt & { outboxSeq: number }, number[]>(
    `SELECT outbox_seq AS outboxSeq, attempt, trigger, started_at AS startedAt, status_code AS statusCode, error,
       duration_ms AS durationMs, response_body AS responseBody, next_attempt_at AS nextAttemptAt
     FROM delivery_attempts WHERE outbox_seq IN (${rows.map(() => '?').join(',')}) ORDER BY id`,
  ).all(...rows.map((r) => r.seq))
  const bySeq = Map.groupBy(attempts, (a) => a.outboxSeq) // in id order within each
  return rows.map((r) => ({ ...r, attempts: bySeq.get(r.seq) ?? [] }))
}
