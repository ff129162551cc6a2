/**
 * What the PostgreSQL outbox tests share: a fresh database per test file (test/pg/harness.ts)
 * with a pool on it, and set-based seeding of webhooks and outbox rows.
 */
import { SQL } from 'bun'
import { pgClientOptions } from '../../../../db/pg/client'
import { pgDatabase } from '../../../pg/harness'

export interface OutboxTestDb {
  url: string
  sql: SQL
  drop(): Promise<void>
}

/** A new migrated database and a pool of `poolSize` on it; `drop` closes the pool and drops the database. */
export async function outboxTestDb(poolSize = 8): Promise<OutboxTestDb> {
  const db = await pgDatabase()
  const sql = new SQL(pgClientOptions(db.url, { processName: 'test', poolSize }))
  return {
    url: db.url,
    sql,
    async drop() {
      await sql.close()
      await db.drop()
    },
  }
}

/** A team and `count` webhooks (`w0`, `w1`, ...) the outbox rows can point at. */
export async function seedWebhooks(sql: SQL, count: number): Promise<string[]> {
  await sql`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES ('acme', 'main', '["en"]'::json, 'en', '2026-01-01T00:00:00.0000000Z')`
  const ids = Array.from({ length: count }, (_, i) => `w${i}`)
  for (const id of ids) {
    await sql`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, created_at, updated_at)
      VALUES (${id}, 'acme', ${id}, 'custom', 'http://127.0.0.1:9/x', '["content.published"]'::json, 's', 'now', 'now')`
  }
  return ids
}

/** `events` events (`e1`, `e2`, ...) to every webhook of `webhookIds`, due at `at`, in event then webhook order of `seq`. */
export async function seedOutbox(sql: SQL, webhookIds: string[], events: number, at: number): Promise<void> {
  await sql`INSERT INTO outbox_events (event_id, payload) SELECT 'e' || i, '{"n":' || i || '}' FROM generate_series(1, ${events}) i`
  await sql.unsafe(
    `INSERT INTO outbox (event_id, webhook_id, team_id, event_type, next_attempt_at, created_at, updated_at)
     SELECT 'e' || i, w, 'acme', 'content.published', $2, $2, $2 FROM generate_series(1, $3::int) i, unnest($1::text[]) w ORDER BY i, w`,
    [sql.array(webhookIds, 'TEXT'), at, events],
  )
}
