/**
 * Both OutboxStore implementations over a fresh database each, for test/db/outbox/store.test.ts:
 * SQLite on a temp file (with its proof-of-life directory beside it), PostgreSQL on a fresh
 * database of TEST_DATABASE_URL's server (test/pg/harness.ts). Each gets the same seed: team
 * `acme`, webhooks `w0` and `w1`, and `events` events to both, due at `at`.
 */
import { SQL } from 'bun'
import { join } from 'node:path'
import { rmSync } from 'node:fs'
import { openDb } from '../../../db/client'
import { pgClientOptions } from '../../../db/pg/client'
import { SqliteOutboxStore } from '../../../db/outbox/sqlite-store'
import { PgOutboxStore } from '../../../db/pg/outbox/store'
import { dispatchersDir } from '../../../db/outbox/wake'
import type { OutboxStore } from '../../../db/outbox/store'
import { makeTestDir } from '../../helpers'
import { pgDatabase } from '../../pg/harness'

export interface StoreWorld {
  /** A new store on the database: another dispatcher's view of the same outbox. */
  store(): OutboxStore
  /** The arguments of test/db/outbox/store-holder.ts for this database. */
  holderArgs: string[]
  /** Every outbox row, in seq order. */
  rows(): Promise<{ seq: number; status: string; attempts: number; leaseToken: string | null }[]>
  /** Attempt rows, in id order. */
  attempts(): Promise<{ outboxSeq: number; attempt: number; statusCode: number | null }[]>
  close(): Promise<void>
}

export async function sqliteWorld(events: number, at: number): Promise<StoreWorld> {
  const dir = makeTestDir()
  const path = join(dir, 'content.db')
  const db = openDb(path)
  const c = db.$client
  c.exec(`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES ('acme', 'main', '["en"]', 'en', '2026-01-01T00:00:00.0000000Z')`)
  for (const id of ['w0', 'w1']) {
    c.query(`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, created_at, updated_at)
      VALUES (?, 'acme', ?, 'custom', 'http://127.0.0.1:9/x', '["content.published"]', 's', 'now', 'now')`).run(id, id)
  }
  c.transaction(() => {
    for (let i = 1; i <= events; i++) {
      c.query(`INSERT INTO outbox_events (event_id, payload) VALUES (?, ?)`).run(`e${i}`, `{"n":${i}}`)
      for (const w of ['w0', 'w1']) {
        c.query(`INSERT INTO outbox (event_id, webhook_id, team_id, event_type, next_attempt_at, created_at, updated_at) VALUES (?, ?, 'acme', 'content.published', ?, ?, ?)`)
          .run(`e${i}`, w, at, at, at)
      }
    }
  })()
  const opened: SqliteOutboxStore[] = []
  return {
    store() {
      const s = new SqliteOutboxStore(openDb(path, { migrate: false }), { livenessDir: dispatchersDir(path), leaseMs: 60_000 })
      opened.push(s)
      return s
    },
    holderArgs: ['sqlite', path],
    rows: async () => c.query(`SELECT seq, status, attempts, lease_token AS leaseToken FROM outbox ORDER BY seq`).all() as never,
    attempts: async () => c.query(`SELECT outbox_seq AS outboxSeq, attempt, status_code AS statusCode FROM delivery_attempts ORDER BY id`).all() as never,
    async close() {
      for (const s of opened) await s.stopProofOfLife()
      c.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export async function pgWorld(events: number, at: number): Promise<StoreWorld> {
  const db = await pgDatabase()
  const sql = new SQL(pgClientOptions(db.url, { processName: 'test', poolSize: 4 }))
  await sql`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES ('acme', 'main', '["en"]'::json, 'en', '2026-01-01T00:00:00.0000000Z')`
  for (const id of ['w0', 'w1']) {
    await sql`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, created_at, updated_at)
      VALUES (${id}, 'acme', ${id}, 'custom', 'http://127.0.0.1:9/x', '["content.published"]'::json, 's', 'now', 'now')`
  }
  await sql`INSERT INTO outbox_events (event_id, payload) SELECT 'e' || i, '{"n":' || i || '}' FROM generate_series(1, ${events}) i`
  await sql`INSERT INTO outbox (event_id, webhook_id, team_id, event_type, next_attempt_at, created_at, updated_at)
    SELECT 'e' || i, w, 'acme', 'content.published', ${at}, ${at}, ${at} FROM generate_series(1, ${events}) i, (VALUES ('w0'), ('w1')) AS v(w) ORDER BY i, w`
  const pools: { sql: SQL; store: PgOutboxStore }[] = []
  return {
    store() {
      const own = new SQL(pgClientOptions(db.url, { processName: 'test store', poolSize: 3 }))
      const store = new PgOutboxStore(own)
      pools.push({ sql: own, store })
      return store
    },
    holderArgs: ['postgresql', db.url],
    rows: async () => [...await sql`SELECT seq::float8 AS "seq", status::text AS status, attempts, lease_token AS "leaseToken" FROM outbox ORDER BY seq`],
    attempts: async () => [...await sql`SELECT outbox_seq::float8 AS "outboxSeq", attempt, status_code AS "statusCode" FROM delivery_attempts ORDER BY id`],
    async close() {
      for (const p of pools) {
        await p.store.stopProofOfLife()
        await p.sql.close()
      }
      await sql.close()
      await db.drop()
    },
  }
}
