/**
 * The dispatcher loop's deliveries with its outbox on PostgreSQL (PgOutboxStore, a fresh
 * database), to a real receiver: events committed after start wake it (NOTIFY), each goes out
 * once with the stored bytes, a 500 is retried at its time, and every row ends delivered with its
 * attempt rows and no lease. Core's part of a full pass (schedules, site changes) still runs on
 * SQLite only, so it is given an empty SQLite file here, where it finds nothing to do: this is
 * the outbox half of the dispatcher on PostgreSQL, not the whole (docs/postgresql.md).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { join } from 'node:path'
import { openDb, type SqliteDb as Db } from '../../db/client'
import { pgClientOptions } from '../../db/pg/client'
import { insertEvent } from '../../db/pg/outbox/insert-event'
import { PgOutboxStore } from '../../db/pg/outbox/store'
import { createDispatcher } from '../../dispatcher/loop'
import { createLogger } from '../../core/log'
import { createMetrics } from '../../core/metrics'
import { makeTestDir, waitFor } from '../helpers'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { describePg, pgDatabase, type PgTestDatabase } from '../pg/harness'

describePg('the dispatcher loop over PgOutboxStore', () => {
  let pg: PgTestDatabase
  let sql: SQL
  let sqlite: Db
  let rx: TestReceiver
  beforeAll(async () => {
    pg = await pgDatabase()
    sql = new SQL(pgClientOptions(pg.url, { processName: 'test', poolSize: 4 }))
    sqlite = openDb(join(makeTestDir(), 'core.db'))
    rx = startReceiver([{ status: 500, body: 'not now' }, { status: 200, body: 'ok' }])
    await sql`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES ('acme', 'main', '["en"]'::json, 'en', '2026-01-01T00:00:00.0000000Z')`
    await sql`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, created_at, updated_at)
      VALUES ('w0', 'acme', 'site', 'custom', ${rx.url}, '["content.published"]'::json, 'whsec', 'now', 'now')`
  })
  afterAll(async () => {
    rx?.stop()
    sqlite?.$client.close()
    await sql?.close()
    await pg?.drop()
  })

  test('events committed after start go out once each, a 500 is retried, every row ends delivered under no lease', async () => {
    const pool = new SQL(pgClientOptions(pg.url, { processName: 'test dispatcher', poolSize: 4 }))
    const d = createDispatcher({
      db: sqlite, store: new PgOutboxStore(pool), log: createLogger('silent', 'test'), metrics: createMetrics(),
      pollMs: 60_000, allowPrivateTargets: true, timeoutMs: 2000, leaseMs: 60_000, perWebhook: 4, random: () => 0,
    })
    try {
      d.start()
      await Bun.sleep(200) // its first pass found nothing; from now on only a wake (or a retry's timer) makes it claim
      const bytes = (i: number) => JSON.stringify({ v: 2, eventId: `e${i}`, n: i })
      await sql.begin(async (tx) => {
        for (let i = 1; i <= 30; i++) await insertEvent(tx, { eventId: `e${i}`, teamId: 'acme', eventType: 'content.published', bytes: bytes(i), webhookIds: ['w0'], at: Date.now() })
      })
      await waitFor(() => rx.requests.length >= 31, 10_000, '30 events and one retry')
      await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM outbox WHERE status = 'delivered'`)[0].n === 30, 5000, 'every row recorded')
      const bodies = rx.requests.map((r) => r.body)
      expect(new Set(bodies).size).toBe(30)
      expect([...new Set(bodies)].sort()).toEqual(Array.from({ length: 30 }, (_, i) => bytes(i + 1)).sort())
      const retried = rx.requests[0]!.body // the first answer was a 500: that event went twice
      expect(bodies.filter((b) => b === retried)).toHaveLength(2)
      expect([...await sql`SELECT status::text AS status, count(*)::int AS n, count(lease_token)::int AS leased FROM outbox GROUP BY 1`]).toEqual([{ status: 'delivered', n: 30, leased: 0 }])
      expect([...await sql`SELECT attempt, status_code AS "statusCode", count(*)::int AS n FROM delivery_attempts GROUP BY 1, 2 ORDER BY 1, 2`]).toEqual([
        { attempt: 1, statusCode: 200, n: 29 }, { attempt: 1, statusCode: 500, n: 1 }, { attempt: 2, statusCode: 200, n: 1 },
      ])
    } finally {
      await d.stop()
      await pool.close()
    }
  })
})
