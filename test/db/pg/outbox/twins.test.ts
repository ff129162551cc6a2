/**
 * The PostgreSQL twins of the outbox's log, test-send, recover, prune and leftover operations
 * (db/pg/outbox/) against the SQLite ones (db/outbox/): the same rows written into a fresh SQLite
 * file and a fresh PostgreSQL database, the same calls on both, every answer and the tables
 * after each step compared whole. Then the plans of the log's pages on PostgreSQL.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import { describePg } from '../../../pg/harness'
import { sqliteTwin, type SqliteTwin } from '../sqlite-twin'
import { outboxTestDb, seedWebhooks, type OutboxTestDb } from './fixtures'
import * as lite from './sqlite-ops'
import { deliveryLeftovers, webhookLeftovers } from '../../../../db/pg/outbox/drop-leftovers'
import { findDelivery } from '../../../../db/pg/outbox/find-delivery'
import { insertTestDelivery } from '../../../../db/pg/outbox/insert-test-delivery'
import { listDeliveries, pageQuery } from '../../../../db/pg/outbox/list-deliveries'
import { pruneDeliveries } from '../../../../db/pg/outbox/prune'
import { failedInWindow, requeueFailed } from '../../../../db/pg/outbox/requeue-failed'
import { outboxRowExists } from '../../../../db/pg/outbox/row-exists'
import { loadSendTarget } from '../../../../db/pg/outbox/send-target'

/** seq, event, webhook, status, trigger, created_at, updated_at; every finished row gets attempts. */
const ROWS: [number, string, string, string, string, number, number][] = [
  [1, 'e1', 'w0', 'delivered', 'scheduled', 100, 200],
  [2, 'e1', 'w1', 'failed', 'scheduled', 100, 300],
  [3, 'e2', 'w0', 'failed', 'scheduled', 150, 400],
  [4, 'e3', 'w0', 'pending', 'scheduled', 160, 160],
  [5, 'e4', 'w0', 'delivered', 'manual', 170, 5000],
  [6, 'e5', 'w0', 'failed', 'test', 180, 500],
  [7, 'e6', 'w0', 'delivered', 'scheduled', 190, 600],
  [8, 'e7', 'w0', 'failed', 'scheduled', 195, 700],
]
/** id, team, emitted_at. */
const SITE_CHANGES: [number, string, number | null][] = [[1, 'acme', 100], [2, 'acme', 200], [3, 'acme', null], [4, 'acme', 9000]]

async function seedPg(sql: SQL) {
  await seedWebhooks(sql, 2)
  for (const [seq, event, hook, status, trigger, created, updated] of ROWS) {
    await sql`INSERT INTO outbox_events (event_id, payload) VALUES (${event}, ${`{"id":"${event}"}`}) ON CONFLICT DO NOTHING`
    await sql`INSERT INTO outbox (seq, event_id, webhook_id, team_id, event_type, status, attempts, next_attempt_at, trigger, created_at, updated_at)
      VALUES (${seq}, ${event}, ${hook}, 'acme', 'content.published', ${status}, ${status === 'pending' ? 0 : 2}, ${created}, ${trigger}, ${created}, ${updated})`
    if (status === 'pending') continue
    for (const attempt of [1, 2]) {
      await sql`INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body, next_attempt_at)
        VALUES (${seq}, ${hook}, ${event}, ${attempt}, ${trigger}, ${created + attempt}, ${attempt === 2 && status === 'delivered' ? 200 : 503}, NULL, 7, 'r', ${attempt === 1 ? created + 1000 : null})`
    }
  }
  for (const [id, team, emitted] of SITE_CHANGES) {
    await sql`INSERT INTO site_changes (id, team_id, status, occurred_at, emitted_at) VALUES (${id}, ${team}, 'template', 1, ${emitted})`
  }
  // Explicit keys leave the identity sequences behind (as a copy from SQLite does): move them on.
  for (const [table, column] of [['outbox', 'seq'], ['delivery_attempts', 'id'], ['site_changes', 'id']]) {
    await sql.unsafe(`SELECT setval(pg_get_serial_sequence('${table}', '${column}'), (SELECT max(${column}) FROM ${table}))`)
  }
}

function seedSqlite(c: Database) {
  for (const id of ['w0', 'w1']) {
    c.query(`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, created_at, updated_at)
      VALUES (?, 'acme', ?, 'custom', 'http://127.0.0.1:9/x', '["content.published"]', 's', 'now', 'now')`).run(id, id)
  }
  for (const [seq, event, hook, status, trigger, created, updated] of ROWS) {
    c.query('INSERT INTO outbox_events (event_id, payload) VALUES (?, ?) ON CONFLICT DO NOTHING').run(event, `{"id":"${event}"}`)
    c.query(`INSERT INTO outbox (seq, event_id, webhook_id, team_id, event_type, status, attempts, next_attempt_at, trigger, created_at, updated_at)
      VALUES (?, ?, ?, 'acme', 'content.published', ?, ?, ?, ?, ?, ?)`).run(seq, event, hook, status, status === 'pending' ? 0 : 2, created, trigger, created, updated)
    if (status === 'pending') continue
    for (const attempt of [1, 2]) {
      c.query(`INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body, next_attempt_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 7, 'r', ?)`).run(seq, hook, event, attempt, trigger, created + attempt, attempt === 2 && status === 'delivered' ? 200 : 503, attempt === 1 ? created + 1000 : null)
    }
  }
  for (const [id, team, emitted] of SITE_CHANGES) c.query(`INSERT INTO site_changes (id, team_id, status, occurred_at, emitted_at) VALUES (?, ?, 'template', 1, ?)`).run(id, team, emitted)
}

/** Each table the operations touch, as plain rows in key order, read the same way on both. */
const TABLES = {
  outbox: 'SELECT seq, event_id, webhook_id, status, attempts, next_attempt_at, lease_token, trigger, created_at, updated_at FROM outbox ORDER BY seq',
  outbox_events: 'SELECT event_id, payload FROM outbox_events ORDER BY event_id',
  delivery_attempts: 'SELECT id, outbox_seq, attempt, trigger, started_at, status_code, duration_ms, response_body, next_attempt_at FROM delivery_attempts ORDER BY id',
  site_changes: 'SELECT id, emitted_at FROM site_changes ORDER BY id',
  webhooks: 'SELECT id FROM webhooks ORDER BY id',
}
const numeric = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) && k !== 'payload' ? Number(v) : v]))
async function pgTables(sql: SQL) {
  const out: Record<string, unknown[]> = {}
  for (const [name, query] of Object.entries(TABLES)) out[name] = [...(await sql.unsafe(query))].map(numeric)
  return out
}
function liteTables(c: Database) {
  const out: Record<string, unknown[]> = {}
  for (const [name, query] of Object.entries(TABLES)) out[name] = (c.query(query).all() as Record<string, unknown>[]).map(numeric)
  return out
}

describePg('outbox twins: PostgreSQL answers as SQLite does', () => {
  let pg: OutboxTestDb
  let sql: SQL
  let twin: SqliteTwin
  let c: Database
  const same = async () => expect(await pgTables(sql)).toEqual(liteTables(c))
  beforeAll(async () => {
    pg = await outboxTestDb(4)
    sql = pg.sql
    await seedPg(sql)
    twin = sqliteTwin()
    c = twin.db.$client
    seedSqlite(c)
  })
  afterAll(async () => {
    twin?.close()
    await pg?.drop()
  })

  test('the seeded tables read the same', same)

  test('the log: pages by the seq cursor, status filters, attempts in order', async () => {
    const queries = [
      { webhookId: 'w0', limit: 3 }, { webhookId: 'w0', limit: 3, beforeSeq: 6 }, { webhookId: 'w0', limit: 3, beforeSeq: 3 },
      { webhookId: 'w0', limit: 10, status: 'failed' as const }, { webhookId: 'w0', limit: 1, status: 'failed' as const, beforeSeq: 8 },
      { webhookId: 'w0', limit: 10, status: 'pending' as const }, { webhookId: 'w0', limit: 10, status: 'delivered' as const, beforeSeq: 7 },
      { webhookId: 'w1', limit: 10 }, { webhookId: 'nope', limit: 10 },
    ]
    for (const q of queries) {
      const page = await listDeliveries(sql, q)
      expect({ q, page }).toEqual({ q, page: lite.listDeliveries(c, q) })
    }
    expect((await listDeliveries(sql, { webhookId: 'w0', limit: 3 })).map((d) => d.seq)).toEqual([8, 7, 6])
  })

  test('find a delivery, whether a row exists, a send target', async () => {
    for (const [hook, event] of [['w0', 'e2'], ['w1', 'e1'], ['w0', 'nope']]) expect(await findDelivery(sql, hook!, event!)).toEqual(lite.findDelivery(c, hook!, event!))
    expect(await findDelivery(sql, 'w0', 'e2')).toEqual({ seq: 3, eventType: 'content.published', leaseExpiresAt: null })
    for (const seq of [4, 99]) expect(await outboxRowExists(sql, seq)).toBe(lite.outboxRowExists(c, seq))
    await sql`UPDATE webhooks SET options = '{"b":1,"a":[2]}'::json WHERE id = 'w1'`
    c.query(`UPDATE webhooks SET options = '{"b":1,"a":[2]}' WHERE id = 'w1'`).run()
    for (const id of ['w0', 'w1', 'nope']) expect(await loadSendTarget(sql, id)).toEqual(lite.loadSendTarget(c, id))
    expect(Object.keys((await loadSendTarget(sql, 'w1'))!.options)).toEqual(['b', 'a'])
  })

  test('recover: the failed rows of a window (test sends left out), queued once', async () => {
    const w = { webhookId: 'w0', since: 0, until: 1000, before: 650 }
    expect(await failedInWindow(sql, w)).toEqual(lite.failedInWindow(c, w))
    expect(await failedInWindow(sql, w)).toEqual([3]) // 6 is a test send, 8 failed after `before`
    const seqs = await failedInWindow(sql, { ...w, before: 10_000 })
    expect(seqs).toEqual([3, 8])
    // 2 is another webhook's; queued again, nothing happens.
    for (const now of [1000, 1001]) expect(await requeueFailed(sql, 'w0', [...seqs, 2], now)).toBe(lite.requeueFailed(c, 'w0', [...seqs, 2], now))
    await same()
  })

  test('a test delivery is stored finished with its one attempt; none for a webhook that is gone', async () => {
    const d = { eventId: 't1', webhookId: 'w1', teamId: 'acme', eventType: 'content.published', bytes: '{}', delivered: false, startedAt: 800, result: { statusCode: 502, error: null, durationMs: 4, responseBody: 'bad gateway' } }
    expect(await insertTestDelivery(sql, d, 810)).toBe(lite.insertTestDelivery(c, d, 810))
    expect(await insertTestDelivery(sql, { ...d, eventId: 't2', webhookId: 'gone' }, 810)).toBe(false)
    expect(lite.insertTestDelivery(c, { ...d, eventId: 't2', webhookId: 'gone' }, 810)).toBe(false)
    const ok = { ...d, eventId: 't3', delivered: true, result: { statusCode: 200, error: 'x', durationMs: 1, responseBody: '' } }
    expect(await insertTestDelivery(sql, ok, 820)).toBe(lite.insertTestDelivery(c, ok, 820))
    expect((await listDeliveries(sql, { webhookId: 'w1', limit: 10 }))[0]).toMatchObject({ eventId: 't3', status: 'delivered', attempts: [{ trigger: 'test', statusCode: 200, error: 'x' }] })
    await same()
  })

  test('prune: a sweep in steps of `max`, the same `next` and counts each step; pending rows stay', async () => {
    let from = 0
    for (let step = 0; step < 10; step++) {
      const got = await pruneDeliveries(sql, 1000, 2, from)
      expect(got).toEqual(lite.pruneDeliveries(c, 1000, 2, () => true, from))
      await same()
      if (got.next === null) break
      from = got.next
    }
    expect((await pgTables(sql)).outbox.map((r: any) => r.seq)).toEqual([3, 4, 5, 8]) // requeued, pending, recent
    expect((await pgTables(sql)).site_changes.map((r: any) => r.id)).toEqual([3, 4])
  })

  test('leftovers: of one deleted delivery, then of a whole webhook before its deletion', async () => {
    await sql`DELETE FROM outbox WHERE seq = 5`
    c.query('DELETE FROM outbox WHERE seq = 5').run()
    expect(await deliveryLeftovers(sql)(5, 'e4')).toBe(lite.deliveryLeftovers(c)(5, 'e4'))
    await same()
    await sql.begin(async (tx) => {
      await webhookLeftovers(tx, 'w1')
      await tx`DELETE FROM webhooks WHERE id = 'w1'`
    })
    lite.webhookLeftovers(c, 'w1')
    c.query(`DELETE FROM webhooks WHERE id = 'w1'`).run()
    await same()
    expect((await pgTables(sql)).outbox_events.map((r: any) => r.event_id)).toEqual(['e2', 'e3', 'e7'])
  })

  test('the log pages on PostgreSQL: an index read backwards from the cursor, no sort; the few failed rows through the status index', async () => {
    await sql`TRUNCATE outbox, outbox_events, delivery_attempts`
    await sql`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, created_at, updated_at)
      VALUES ('w2', 'acme', 'w2', 'custom', 'http://127.0.0.1:9/x', '[]'::json, 's', 'now', 'now')`
    await sql`INSERT INTO outbox (event_id, webhook_id, team_id, event_type, status, next_attempt_at, created_at, updated_at)
      SELECT 'x' || i, CASE WHEN i % 10 = 0 THEN 'w0' ELSE 'w2' END, 'acme', 'content.published', CASE WHEN i % 500 = 0 THEN 'failed' ELSE 'delivered' END, i, i, i
      FROM generate_series(1, 20000) i`
    await sql`ANALYZE outbox`
    const plan = async (q: Parameters<typeof pageQuery>[0]) => {
      const { text, params } = pageQuery(q)
      return [...(await sql.unsafe(`EXPLAIN ${text}`, params))].map((r: any) => r['QUERY PLAN']).join('\n')
    }
    expect(await plan({ webhookId: 'w0', limit: 50 })).toContain('Index Scan Backward using outbox_webhook_seq')
    // A deeper page: an index read backwards from the cursor, whichever the planner finds cheaper; never a sort of the log.
    for (const beforeSeq of [15_000, 300]) {
      const deep = await plan({ webhookId: 'w0', limit: 50, beforeSeq })
      expect(deep).toContain('Index Scan Backward using')
      expect(deep).not.toContain('Sort')
    }
    expect(await plan({ webhookId: 'w0', limit: 50, status: 'failed' })).toContain('outbox_webhook_due')
    expect((await listDeliveries(sql, { webhookId: 'w0', limit: 50, status: 'failed' })).length).toBe(40)
  })
})
