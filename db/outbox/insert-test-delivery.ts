/** Test delivery insert: a test send, stored as a finished delivery with its one attempt. */
import type { Database } from 'bun:sqlite'
import type { AttemptRecord } from './attempt'

export interface TestDelivery {
  eventId: string
  webhookId: string
  teamId: string
  eventType: string
  bytes: string
  delivered: boolean
  startedAt: number
  result: AttemptRecord
}

/**
 * Stores a test send (trigger `test`) like any delivery, so it shows in the log and can be
 * redelivered: its bytes, an outbox row already delivered or failed, and its attempt, in one
 * write transaction. A webhook deleted while the test was on the wire gets nothing (false).
 */
export function insertTestDelivery(client: Database, d: TestDelivery, now = Date.now()): boolean {
  return client.transaction(() => {
    if (!client.query('SELECT 1 FROM webhooks WHERE id = ?').get(d.webhookId)) return false
    client.query('INSERT INTO outbox_events (event_id, payload) VALUES (?, ?)').run(d.eventId, d.bytes)
    const { seq } = client.query(
      `INSERT INTO outbox (event_id, webhook_id, team_id, event_type, status, attempts, next_attempt_at, trigger, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 1, ?, 'test', ?, ?) RETURNING seq`,
    ).get(d.eventId, d.webhookId, d.teamId, d.eventType, d.delivered ? 'delivered' : 'failed', d.startedAt, d.startedAt, now) as { seq: number }
    client.query(
      `INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body, next_attempt_at)
       VALUES (?, ?, ?, 1, 'test', ?, ?, ?, ?, ?, NULL)`,
    ).run(seq, d.webhookId, d.eventId, d.startedAt, d.result.statusCode, d.result.error, d.result.durationMs, d.result.responseBody)
    return true
  }).immediate()
}
