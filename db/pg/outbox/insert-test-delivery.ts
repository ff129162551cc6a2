/** Test delivery insert on PostgreSQL (twin of db/outbox/insert-test-delivery.ts): a test send, stored as a finished delivery with its one attempt. */
import type { SQL } from 'bun'
import type { TestDelivery } from '../../outbox/insert-test-delivery'

/**
 * Stores a test send (trigger `test`) like any delivery, so it shows in the log and can be
 * redelivered: its bytes, an outbox row already delivered or failed, and its attempt, in ONE
 * statement (so one transaction, on the pool or inside a caller's). The webhook row is read
 * `FOR KEY SHARE`, which a concurrent delete of the webhook waits for: a webhook deleted while
 * the test was on the wire gets nothing (false), and one deleted after gets its rows removed
 * with it.
 */
export async function insertTestDelivery(sql: SQL, d: TestDelivery, now = Date.now()): Promise<boolean> {
  const [row] = await sql`WITH hook AS (SELECT id FROM webhooks WHERE id = ${d.webhookId} FOR KEY SHARE),
    bytes AS (INSERT INTO outbox_events (event_id, payload) SELECT ${d.eventId}, ${d.bytes} FROM hook),
    delivery AS (
      INSERT INTO outbox (event_id, webhook_id, team_id, event_type, status, attempts, next_attempt_at, trigger, created_at, updated_at)
      SELECT ${d.eventId}, id, ${d.teamId}, ${d.eventType}, ${d.delivered ? 'delivered' : 'failed'}, 1, ${d.startedAt}, 'test', ${d.startedAt}, ${now} FROM hook
      RETURNING seq
    ),
    attempt AS (
      INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body, next_attempt_at)
      SELECT seq, ${d.webhookId}, ${d.eventId}, 1, 'test', ${d.startedAt}, ${d.result.statusCode}::int, ${d.result.error}::text, ${d.result.durationMs},
        ${d.result.responseBody}, NULL FROM delivery
    )
    SELECT count(*)::int AS n FROM delivery`
  return row.n === 1
}
