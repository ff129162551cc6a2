/**
 * A fresh PostgreSQL database per test file for the outbox tests: `CREATE DATABASE t_<random>`
 * on the server of `TEST_DATABASE_URL`, the committed migrations of db/migrations/pg applied in
 * journal order, dropped after. Without `TEST_DATABASE_URL` the tests are skipped, and say why.
 */
import { SQL } from 'bun'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export const serverUrl = process.env.TEST_DATABASE_URL ?? ''
export const skipReason = serverUrl ? null : 'PostgreSQL outbox tests skipped: TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)'
if (skipReason) console.log(skipReason)

const MIGRATIONS = join(import.meta.dir, '../../../../db/migrations/pg')

export interface PgTestDb {
  url: string
  sql: SQL
  drop(): Promise<void>
}

/** A new database with the schema, and a pool on it. */
export async function createPgTestDb(): Promise<PgTestDb> {
  const name = `t_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
  const admin = new SQL(serverUrl, { max: 1 })
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const sql = new SQL(url.toString(), { max: 8 })
  const journal = JSON.parse(readFileSync(join(MIGRATIONS, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] }
  for (const { tag } of journal.entries) {
    for (const statement of readFileSync(join(MIGRATIONS, `${tag}.sql`), 'utf8').split('--> statement-breakpoint')) {
      if (statement.trim()) await sql.unsafe(statement)
    }
  }
  return {
    url: url.toString(),
    sql,
    async drop() {
      await sql.close()
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.close()
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

/** `events` events to every webhook of `webhookIds`, due at `at`, written in one set-based statement per table. */
export async function seedOutbox(sql: SQL, webhookIds: string[], events: number, at: number): Promise<void> {
  await sql`INSERT INTO outbox_events (event_id, payload) SELECT 'e' || i, '{"n":' || i || '}' FROM generate_series(1, ${events}) i`
  await sql.unsafe(
    `INSERT INTO outbox (event_id, webhook_id, team_id, event_type, next_attempt_at, created_at, updated_at)
     SELECT 'e' || i, w, 'acme', 'content.published', $2, $2, $2 FROM generate_series(1, $3::int) i, unnest($1::text[]) w ORDER BY i, w`,
    [sql.array(webhookIds, 'TEXT'), at, events],
  )
}
