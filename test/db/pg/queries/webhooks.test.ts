/**
 * The PostgreSQL twins of db/queries/webhooks.ts against the SQLite ones: the same webhooks,
 * events and delivery states on both, every answer and the outbox tables after each write
 * compared; then, on PostgreSQL, a redeliver racing a webhook's cleanup of finished deliveries and
 * a dispatcher's claim (each fails without its lock or re-check).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { describePg } from '../../../pg/harness'
import { queriesTwin, same, sameTable, type QueriesTwin } from './twin'
import * as lite from '../../../../db/queries/webhooks'
import * as pg from '../../../../db/pg/queries/webhooks'
import { storeEvent as liteStoreEvent } from '../../../../db/queries/events'
import { storeEvent as pgStoreEvent } from '../../../../db/pg/queries/events'
import type { WebhookRow } from '../../../../db/schema'
import { claimDue } from '../../../../db/pg/outbox/claim'

// updated_at of a test send is the clock's on SQLite (insert-test-delivery.ts): left out.
const OUTBOX = 'SELECT seq, event_id, webhook_id, team_id, event_type, status, attempts, next_attempt_at, lease_token, lease_expires_at, trigger, created_at FROM outbox ORDER BY seq'
const ATTEMPTS = 'SELECT id, outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body, next_attempt_at FROM delivery_attempts ORDER BY id'
const EVENTS = 'SELECT event_id, payload FROM outbox_events ORDER BY event_id'
const WEBHOOKS = 'SELECT id, team_id, label, provider, target, events, secret, options, created_at, updated_at FROM webhooks ORDER BY id'

const hook = (id: string, at: string, extra: Partial<WebhookRow> = {}): WebhookRow => ({
  id, teamId: 'acme', label: id, provider: 'custom', target: 'http://127.0.0.1:9/', events: ['content.published'], secret: 's', options: {}, createdAt: at, updatedAt: at, ...extra,
})

/** The same statement on both (`$n` parameters; SQLite reads them as `?n`). */
async function both(t: QueriesTwin, text: string, params: (string | number | null)[]) {
  await t.sql.unsafe(text, params)
  t.c.query(text.replace(/\$(\d+)/g, '?$1')).run(...params)
}

describePg('query twins: webhooks and their deliveries on PostgreSQL answer as on SQLite', () => {
  let t: QueriesTwin
  const tablesSame = async () => {
    for (const q of [OUTBOX, ATTEMPTS, EVENTS, WEBHOOKS]) await sameTable(t, q)
  }
  beforeAll(async () => {
    t = await queriesTwin()
  })
  afterAll(async () => {
    await t?.close()
  })

  test('webhook rows: insert, one of a team, a team\'s oldest first, an update of every column', async () => {
    for (const row of [hook('w2', '2026-01-01T00:00:01.000Z'), hook('w1', '2026-01-01T00:00:02.000Z', { options: { b: 1, a: [2] }, events: ['site.changed', 'content.published'] })]) {
      await same(['insertWebhook', row.id], pg.insertWebhook(t.sql, row), lite.insertWebhook(t.db, row))
    }
    await same('webhooksOfTeam', pg.webhooksOfTeam(t.sql, 'acme'), lite.webhooksOfTeam(t.db, 'acme'))
    expect((await pg.webhooksOfTeam(t.sql, 'acme')).map((w) => w.id)).toEqual(['w2', 'w1'])
    const next = hook('w2', '2026-01-01T00:00:01.000Z', { label: 'two', provider: 'github', options: { token: 't', event_type: 'x' }, events: [], updatedAt: '2026-03-01T00:00:00.000Z' })
    await same('updateWebhookRow', pg.updateWebhookRow(t.sql, 'w2', next), lite.updateWebhookRow(t.db, 'w2', next))
    for (const [team, id] of [['acme', 'w1'], ['acme', 'w2'], ['other', 'w1'], ['acme', 'nope']]) {
      await same(['webhookOf', team, id], pg.webhookOf(t.sql, team!, id!), lite.webhookOf(t.db, team!, id!))
    }
    expect(Object.keys((await pg.webhookOf(t.sql, 'acme', 'w1'))!.options)).toEqual(['b', 'a'])
    await tablesSame()
  })

  test('deliveries: test sends, one by event, log pages, redeliver (missing, in flight, queued), recover a window', async () => {
    for (const [i, hooks] of [['w1'], ['w1'], ['w1'], ['w1'], ['w1', 'w2']].entries()) {
      const e = { eventId: `e${i + 1}`, teamId: 'acme', eventType: 'content.published', bytes: `{"n":${i + 1}}`, webhookIds: hooks, at: 1_000 + i }
      await same(['storeEvent', e.eventId], t.sql.begin((tx) => pgStoreEvent(tx, e)), t.db.transaction((tx) => liteStoreEvent(tx, e)))
    }
    // seq 1 delivered, 2 and 4 failed (last written at 3000), 3 leased until 10000; attempts for 1 and 2.
    await both(t, `UPDATE outbox SET status = 'delivered', attempts = 1, updated_at = 2000 WHERE seq = 1`, [])
    await both(t, `UPDATE outbox SET status = 'failed', attempts = 3, updated_at = 3000 WHERE seq IN (2, 4)`, [])
    await both(t, `UPDATE outbox SET lease_token = 'L', lease_expires_at = 10000 WHERE seq = 3`, [])
    for (const [seq, n, code] of [[1, 1, 200], [2, 1, 500], [2, 2, null]] as const) {
      await both(t, `INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body, next_attempt_at)
        VALUES ($1, 'w1', $2, $3, 'scheduled', $4, $5, $6, 5, 'r', NULL)`, [seq, `e${seq}`, n, 1_500 + n, code, code === null ? 'timeout' : null])
    }
    const send = { eventId: 't1', webhookId: 'w2', teamId: 'acme', eventType: 'content.published', bytes: '{}', delivered: true, startedAt: 4_000, result: { statusCode: 204, error: null, durationMs: 3, responseBody: '' } }
    for (const d of [send, { ...send, eventId: 't2', webhookId: 'gone' }]) await same(['storeTestDelivery', d.eventId], pg.storeTestDelivery(t.sql, d), lite.storeTestDelivery(t.db, d))
    await tablesSame()
    for (const [w, e] of [['w1', 'e2'], ['w2', 'e5'], ['w2', 't1'], ['w1', 'nope']]) await same(['deliveryOf', w, e], pg.deliveryOf(t.sql, w!, e!), lite.deliveryOf(t.db, w!, e!))
    for (const q of [{ webhookId: 'w1', limit: 2 }, { webhookId: 'w1', limit: 10, beforeSeq: 4 }, { webhookId: 'w1', limit: 10, status: 'failed' as const }, { webhookId: 'w2', limit: 10 }]) {
      await same(['deliveryLogPage', q], pg.deliveryLogPage(t.sql, q), lite.deliveryLogPage(t.db, q))
    }
    const asks: [string, number][] = [['nope', 5_000], ['e3', 5_000], ['e1', 5_000], ['e3', 20_000]]
    for (const [event, now] of asks) {
      const answer = await same(['requeueDelivery', event, now], pg.requeueDelivery(t.sql, 'w1', event, now), lite.requeueDelivery(t.db, 'w1', event, now))
      expect(answer.outcome as string).toBe(({ nope: 'missing', e3: now === 5_000 ? 'in-flight' : 'requeued', e1: 'requeued' } as Record<string, string>)[event]!)
      await tablesSame()
    }
    for (const w of [{ webhookId: 'w1', since: 0, until: 2_000, before: 5_000 }, { webhookId: 'w1', since: 1_002, until: 2_000, before: 5_000 }, { webhookId: 'w1', since: 0, until: 2_000, before: 3_000 }]) {
      await same(['failedDeliveries', w], pg.failedDeliveries(t.sql, w), lite.failedDeliveries(t.db, w))
    }
    for (const now of [6_000, 6_001]) {
      await same(['requeueFailedDeliveries', now], pg.requeueFailedDeliveries(t.sql, 'w1', [2, 4, 5], now), lite.requeueFailedDeliveries(t.db, 'w1', [2, 4, 5], now))
      await tablesSame()
    }
  })

  test('cleanup: finished deliveries in steps (pending ones stay), then a webhook with what is left of its log', async () => {
    await both(t, `UPDATE outbox SET status = 'delivered', lease_token = NULL, lease_expires_at = NULL WHERE seq IN (1, 2, 3)`, [])
    for (const [w, max] of [['w1', 1], ['w1', 10], ['w1', 10], ['w2', 10]] as const) {
      await same(['deleteFinishedDeliveries', w, max], pg.deleteFinishedDeliveries(t.sql, w, max), lite.deleteFinishedDeliveries(t.db, w, max))
      await tablesSame()
    }
    expect([...(await t.sql`SELECT seq FROM outbox ORDER BY seq`)].map((r: any) => Number(r.seq))).toEqual([4, 5, 6]) // pending: requeued (4) or never sent (5, 6)
    for (const id of ['w1', 'nope']) {
      await same(['deleteWebhookRow', id], t.sql.begin((tx) => pg.deleteWebhookRow(tx, id)), t.db.transaction((tx) => lite.deleteWebhookRow(tx, id)))
      await tablesSame()
    }
    expect([...(await t.sql`SELECT event_id FROM outbox_events ORDER BY event_id`)].map((r: any) => r.event_id)).toEqual(['e5'])
  })

  test('a redeliver and the cleanup racing on PostgreSQL: the row is requeued and stays, or is gone and answers missing', async () => {
    await pg.insertWebhook(t.sql, hook('w9', '2026-01-02T00:00:00.000Z'))
    for (let round = 0; round < 10; round++) {
      const e = { eventId: `r${round}`, teamId: 'acme', eventType: 'content.published', bytes: '{}', webhookIds: ['w9'], at: 1 }
      await t.sql.begin((tx) => pgStoreEvent(tx, e))
      await t.sql`UPDATE outbox SET status = 'delivered' WHERE event_id = ${e.eventId}`
      const [requeued, deleted] = await Promise.all([pg.requeueDelivery(t.sql, 'w9', e.eventId, 50), pg.deleteFinishedDeliveries(t.sql, 'w9', 10)])
      const [row] = await t.sql`SELECT status FROM outbox WHERE event_id = ${e.eventId}`
      if (requeued.outcome === 'requeued') expect({ deleted, status: row?.status }).toEqual({ deleted: 0, status: 'pending' })
      else expect({ requeued: requeued.outcome, deleted, row }).toEqual({ requeued: 'missing', deleted: 1, row: undefined })
    }
  })

  test('a redeliver racing a claim on PostgreSQL: a lease the claim wrote is never wiped by the requeue', async () => {
    await pg.insertWebhook(t.sql, hook('w8', '2026-01-03T00:00:00.000Z'))
    for (let round = 0; round < 40; round++) {
      const e = { eventId: `c${round}`, teamId: 'acme', eventType: 'content.published', bytes: '{}', webhookIds: ['w8'], at: 1 }
      await t.sql.begin((tx) => pgStoreEvent(tx, e))
      const [requeued, claimed] = await Promise.all([
        pg.requeueDelivery(t.sql, 'w8', e.eventId, 100),
        claimDue(t.sql, { now: 100, leaseMs: 60_000, limit: 10, webhookIds: ['w8'] }),
      ])
      const [row] = await t.sql`SELECT lease_token FROM outbox WHERE event_id = ${e.eventId}`
      // Either the claim leased it before the requeue read it (the requeue then answers in-flight),
      // or the requeue went first and the claim passed the locked row by (or leased the requeued one).
      if (claimed.length > 0) expect({ round, lease: row!.lease_token }).toEqual({ round, lease: claimed[0]!.leaseToken })
      else expect({ round, requeued: requeued.outcome }).toEqual({ round, requeued: 'requeued' })
      await t.sql`DELETE FROM outbox WHERE event_id = ${e.eventId}`
    }
  })
})
