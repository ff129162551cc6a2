/** The outbox operations of db/outbox/, each on a real SQLite file, through one delivery's life. */
import { sqliteOf } from '../../dialect'
import { afterEach, beforeEach, expect, test } from 'bun:test'
import type { Database } from 'bun:sqlite'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../../helpers'
import { claimDue } from '../../../db/outbox/claim'
import { findDelivery } from '../../../db/outbox/find-delivery'
import { insertEvent } from '../../../db/outbox/insert-event'
import { insertTestDelivery } from '../../../db/outbox/insert-test-delivery'
import { listDeliveries } from '../../../db/outbox/list-deliveries'
import { recordAttempts } from '../../../db/outbox/record-attempts'
import { releaseLease } from '../../../db/outbox/release-lease'
import { requeueManual } from '../../../db/outbox/requeue-manual'
import { outboxRowExists } from '../../../db/outbox/row-exists'
import { loadSendTarget } from '../../../db/outbox/send-target'
import { listWebhookIds } from '../../../db/outbox/webhook-ids'

let ctx: TestContext
let c: Database
let hook: string
const answer = (statusCode: number) => ({ statusCode, error: null, refused: false, durationMs: 3, responseBody: 'ok' })

beforeEach(async () => {
  ctx = await createTestContext()
  c = sqliteOf(ctx.db).$client
  const res = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'x', provider: 'custom', target: 'http://127.0.0.1:9/x' } })
  hook = res.body.id
})
afterEach(() => ctx.close())

test('insert, claim under a lease, release, claim again, record; then a manual requeue and the log page', () => {
  expect(listWebhookIds(c)).toEqual([hook])
  expect(loadSendTarget(c, hook)).toMatchObject({ provider: 'custom', target: 'http://127.0.0.1:9/x', options: {} })
  expect(loadSendTarget(c, 'nope')).toBeNull()
  expect(insertEvent(c, { eventId: 'e1', teamId: TEAM, eventType: 'content.published', bytes: '{"a":1}', webhookIds: [hook], at: 1000 })).toBe(1)
  insertEvent(c, { eventId: 'e1', teamId: TEAM, eventType: 'content.published', bytes: '{"other":1}', webhookIds: [hook], at: 1000 }) // the same event again: nothing changes
  expect(claimDue(c, { now: 999, leaseMs: 5000, limit: 10 })).toEqual([]) // not due yet
  const [row] = claimDue(c, { now: 1000, leaseMs: 5000, limit: 10 })
  expect(row).toMatchObject({ eventId: 'e1', webhookId: hook, attempts: 0, trigger: 'scheduled', payload: '{"a":1}' })
  expect(claimDue(c, { now: 1000, leaseMs: 5000, limit: 10 })).toEqual([]) // leased
  releaseLease(c, row!)
  const [again] = claimDue(c, { now: 1001, leaseMs: 5000, limit: 10 })
  expect(again!.leaseToken).not.toBe(row!.leaseToken)
  // The old token's record is refused; the holder's goes in with its attempt row.
  const step = { status: 'pending' as const, delayMs: 1500 }
  expect(recordAttempts(c, [{ row: row!, result: answer(500), step, startedAt: 1002 }, { row: again!, result: answer(500), step, startedAt: 1002 }], 1010)).toEqual([false, true])
  expect(findDelivery(c, hook, 'e1')).toEqual({ seq: row!.seq, eventType: 'content.published', leaseExpiresAt: null })
  expect(claimDue(c, { now: 1002 + 3 + 1499, leaseMs: 5000, limit: 10 })).toEqual([]) // due 1.5 s after the answer
  requeueManual(c, row!.seq, 1100)
  const [manual] = claimDue(c, { now: 1100, leaseMs: 5000, limit: 10 })
  expect(manual).toMatchObject({ attempts: 0, trigger: 'manual' })
  recordAttempts(c, [{ row: manual!, result: answer(200), step: { status: 'delivered' }, startedAt: 1101 }])
  const [logged] = listDeliveries(c, { webhookId: hook, limit: 10 })
  expect(logged).toMatchObject({ eventId: 'e1', status: 'delivered', createdAt: 1000 })
  expect(logged!.attempts.map((a) => [a.attempt, a.trigger, a.statusCode, a.nextAttemptAt])).toEqual([[1, 'scheduled', 500, 2505], [1, 'manual', 200, null]])
  expect(listDeliveries(c, { webhookId: hook, limit: 10, status: 'failed' })).toEqual([])
  expect(listDeliveries(c, { webhookId: hook, limit: 10, beforeSeq: row!.seq })).toEqual([])
  expect(outboxRowExists(c, row!.seq)).toBe(true)
  expect(outboxRowExists(c, row!.seq + 1)).toBe(false)
})

test('a claim takes at most the budget of each webhook, earliest due first', () => {
  for (let i = 0; i < 5; i++) insertEvent(c, { eventId: `e${i}`, teamId: TEAM, eventType: 'content.published', bytes: '{}', webhookIds: [hook], at: 1000 - i })
  const rows = claimDue(c, { now: 1000, leaseMs: 5000, limit: 10, budget: () => 2 })
  expect(rows.map((r) => r.eventId).sort()).toEqual(['e3', 'e4'])
  expect(claimDue(c, { now: 1000, leaseMs: 5000, limit: 10, mayWrite: () => false })).toEqual([]) // the lock taken: nothing leased
  expect(claimDue(c, { now: 1000, leaseMs: 5000, limit: 10 })).toHaveLength(3)
})

test('a test delivery is stored finished, with its one attempt; none for a webhook deleted meanwhile', () => {
  const d = { eventId: 't1', webhookId: hook, teamId: TEAM, eventType: 'content.published', bytes: '{}', delivered: false, startedAt: 5, result: { ...answer(502), responseBody: 'bad gateway' } }
  expect(insertTestDelivery(c, d, 9)).toBe(true)
  const [logged] = listDeliveries(c, { webhookId: hook, limit: 1 })
  expect(logged).toMatchObject({ eventId: 't1', status: 'failed', attempts: [{ attempt: 1, trigger: 'test', statusCode: 502, responseBody: 'bad gateway', nextAttemptAt: null }] })
  expect(claimDue(c, { now: 10_000, leaseMs: 5000, limit: 10 })).toEqual([])
  expect(insertTestDelivery(c, { ...d, eventId: 't2', webhookId: 'deleted' })).toBe(false)
  expect(findDelivery(c, 'deleted', 't2')).toBeNull()
})
