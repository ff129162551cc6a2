/**
 * `POST /teams/{teamId}/webhooks/{id}/recover` (contract.md "Webhooks"): what it queues, what it
 * leaves alone, and every refusal with its status, body shape and code.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'
import { insertDeliveries, insertDelivery, rows as select, run } from '../rows'
import { RECOVER_STEP } from '../../core/webhooks/recover'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

const base = `/teams/${TEAM}/webhooks`
const HOUR = 3_600_000
const T0 = Date.parse('2026-11-20T10:00:00Z')
const iso = (ms: number) => new Date(ms).toISOString()

async function newHook(label = 'Recover'): Promise<string> {
  const res = await ctx.call('POST', base, { token: TOKENS.webhooks, body: { label, provider: 'custom', target: 'http://127.0.0.1:9/hook' } })
  expect(res.status).toBe(201)
  return res.body.id
}
const recover = (hookId: string, body: unknown, token: string | null = TOKENS.webhooks) => ctx.call('POST', `${base}/${hookId}/recover`, { token, body })
type Row = { eventId: string; status: string; attempts: number; trigger: string; nextAttemptAt: number; seq: number }
const rows = (hookId: string) => select<Row>(ctx.db,
  'SELECT event_id AS "eventId", status, attempts, trigger, next_attempt_at AS "nextAttemptAt", seq FROM outbox WHERE webhook_id = ? ORDER BY seq', hookId)
const statusOf = async (hookId: string) => Object.fromEntries((await rows(hookId)).map((r) => [r.eventId, `${r.status}/${r.trigger}`]))

test('queues the failed events of the window, oldest first, as manual redeliveries; leaves everything else alone', async () => {
  const hook = await newHook()
  const other = await newHook('Other')
  const c = ctx.db
  await insertDelivery(c, { eventId: 'before', webhookId: hook, status: 'failed', attempts: 3, at: T0 - 1 })
  await insertDelivery(c, { eventId: 'f1', webhookId: hook, status: 'failed', attempts: 3, at: T0 })
  await insertDelivery(c, { eventId: 'ok', webhookId: hook, status: 'delivered', attempts: 1, at: T0 + 1000 })
  await insertDelivery(c, { eventId: 'f2', webhookId: hook, status: 'failed', attempts: 1, at: T0 + 2000 })
  await insertDelivery(c, { eventId: 'busy', webhookId: hook, status: 'pending', attempts: 1, at: T0 + 3000 })
  await insertDelivery(c, { eventId: 'f3', webhookId: hook, status: 'failed', attempts: 3, at: T0 + HOUR - 1 })
  await insertDelivery(c, { eventId: 'after', webhookId: hook, status: 'failed', attempts: 3, at: T0 + HOUR })
  await insertDelivery(c, { eventId: 'f1', webhookId: other, status: 'failed', attempts: 3, at: T0 })
  // A failed test send: a sample, not an event the receiver missed.
  const testSeq = await insertDelivery(c, { eventId: 'sample', webhookId: hook, status: 'failed', attempts: 1, at: T0 + 5000 })
  await run(c, "UPDATE outbox SET trigger = 'test' WHERE seq = ?", testSeq)

  const res = await recover(hook, { since: iso(T0), until: iso(T0 + HOUR) })
  expect(res).toMatchObject({ status: 202, body: { queued: 3 } })
  expect(res.body).toEqual({ queued: 3 })
  expect(await statusOf(hook)).toEqual({
    before: 'failed/scheduled', f1: 'pending/manual', ok: 'delivered/scheduled', f2: 'pending/manual', busy: 'pending/scheduled',
    f3: 'pending/manual', after: 'failed/scheduled', sample: 'failed/test',
  })
  expect(await statusOf(other)).toEqual({ f1: 'failed/scheduled' })
  // A fresh budget, and one due time for all: the claim's (due time, seq) order is the events' order.
  const queued = (await rows(hook)).filter((r) => r.trigger === 'manual')
  expect(queued.map((r) => r.attempts)).toEqual([0, 0, 0])
  expect(new Set(queued.map((r) => r.nextAttemptAt)).size).toBe(1)
  expect(queued.map((r) => r.eventId)).toEqual(['f1', 'f2', 'f3'])
  // The same window again queues nothing: those are pending now, not failed.
  expect((await recover(hook, { since: iso(T0), until: iso(T0 + HOUR) })).body).toEqual({ queued: 0 })
})

test('`until` defaults to now; timestamps with an offset and a date alone are taken', async () => {
  const hook = await newHook()
  const now = Date.now()
  await insertDelivery(ctx.db, { eventId: 'recent', webhookId: hook, status: 'failed', attempts: 3, at: now - 60_000 })
  await insertDelivery(ctx.db, { eventId: 'old', webhookId: hook, status: 'failed', attempts: 3, at: T0 - 24 * HOUR })
  expect((await recover(hook, { since: iso(now - HOUR) })).body).toEqual({ queued: 1 })
  expect(await statusOf(hook)).toEqual({ recent: 'pending/manual', old: 'failed/scheduled' })
  // 2026-11-19T13:00:00+02:00 is 11:00 UTC, before `old` (T0 - 24 h = 2026-11-19T10:00Z): not queued.
  expect((await recover(hook, { since: '2026-11-19T13:00:00+02:00', until: '2026-11-20' })).body).toEqual({ queued: 0 })
  expect((await recover(hook, { since: '2026-11-19', until: '2026-11-20' })).body).toEqual({ queued: 1 })
})

test(`thousands go in steps of ${RECOVER_STEP}; two recovers at once queue each event once`, async () => {
  const hook = await newHook()
  const n = 2 * RECOVER_STEP + 137
  await insertDeliveries(ctx.db, Array.from({ length: n }, (_, i) => ({ eventId: `bulk-${i}`, webhookId: hook, status: 'failed' as const, attempts: 3, at: T0 + i })))
  const window = { since: iso(T0), until: iso(T0 + n) }
  const [a, b] = await Promise.all([recover(hook, window), recover(hook, window)])
  expect([a.status, b.status]).toEqual([202, 202])
  expect(a.body.queued + b.body.queued).toBe(n)
  const all = await rows(hook)
  expect(all.every((r) => r.status === 'pending' && r.trigger === 'manual' && r.attempts === 0)).toBe(true)
  expect((await recover(hook, window)).body).toEqual({ queued: 0 })
})

test('the delivery log shows a recovered event as pending again, its old attempts kept', async () => {
  const hook = await newHook()
  const seq = await insertDelivery(ctx.db, { eventId: 'logged', webhookId: hook, status: 'failed', attempts: 1, at: T0 })
  await run(ctx.db, `INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body, next_attempt_at)
    VALUES (?, ?, 'logged', 1, 'scheduled', ?, 503, NULL, 3, 'down', NULL)`, seq, hook, T0)
  expect((await recover(hook, { since: iso(T0) })).body).toEqual({ queued: 1 })
  const log = await ctx.call('GET', `${base}/${hook}/deliveries`, { token: TOKENS.webhooks })
  expect(log.body).toEqual([{
    eventId: 'logged', eventType: 'content.published', status: 'pending', createdAt: iso(T0),
    attempts: [{ attempt: 1, trigger: 'scheduled', at: iso(T0), statusCode: 503, error: null, durationMs: 3, nextAttemptAt: null, responseBody: 'down' }],
  }])
})

const refusal = (status: number, error: string) => ({ status, body: { error, message: expect.any(String) } })
const answer = (r: { status: number; body: any }) => ({ status: r.status, body: r.body })

test('refusals: 401 without a token, 403 without ManageWebhooks or in another team, 404 for an unknown or another team\'s webhook', async () => {
  const hook = await newHook()
  const other = await ctx.call('POST', '/teams/other/webhooks', { token: TOKENS.outsider, body: { label: 'Theirs', provider: 'custom', target: 'http://127.0.0.1:9/x' } })
  expect(other.status).toBe(201)
  const window = { since: iso(T0) }
  expect(answer(await recover(hook, window, null))).toEqual(refusal(401, 'unauthorized'))
  expect(answer(await recover(hook, window, TOKENS.translator))).toEqual(refusal(403, 'forbidden'))
  expect(answer(await recover(hook, window, TOKENS.outsider))).toEqual(refusal(403, 'forbidden'))
  expect(answer(await recover('no-such-webhook', window))).toEqual(refusal(404, 'not_found'))
  expect(answer(await recover(other.body.id, window))).toEqual(refusal(404, 'not_found'))
})

test('refusals: 400 for a missing or malformed window, each with its code; nothing is queued', async () => {
  const hook = await newHook()
  await insertDelivery(ctx.db, { eventId: 'kept', webhookId: hook, status: 'failed', attempts: 3, at: T0 })
  const future = iso(Date.now() + HOUR)
  const cases: [unknown, string][] = [
    [{}, 'invalid_body'],
    [{ until: iso(T0) }, 'invalid_body'],
    [{ since: iso(T0), extra: 1 }, 'invalid_body'],
    [{ since: 1700000000 }, 'invalid_body'],
    [{ since: 'yesterday' }, 'bad_window'],
    [{ since: '' }, 'bad_window'],
    [{ since: '2026-11-20T10:00:00' }, 'bad_window'], // no offset: whose 10 o'clock?
    [{ since: '2026-02-30T10:00:00Z' }, 'bad_window'],
    [{ since: iso(T0), until: 'now' }, 'bad_window'],
    [{ since: iso(T0), until: iso(T0 - 1) }, 'bad_window'],
    [{ since: iso(T0), until: iso(T0) }, 'bad_window'],
    [{ since: future }, 'bad_window'],
  ]
  for (const [sent, code] of cases) {
    expect({ sent, ...answer(await recover(hook, sent)) }).toEqual({ sent, ...refusal(400, code) })
  }
  expect(answer(await ctx.call('POST', `${base}/${hook}/recover`, { token: TOKENS.webhooks, body: 'null' })).status).toBe(400)
  expect(await statusOf(hook)).toEqual({ kept: 'failed/scheduled' })
  // The message says what is wrong.
  expect((await recover(hook, { since: iso(T0), until: iso(T0 - 1) })).body.message).toBe('`until` must come after `since`.')
  expect((await recover(hook, { since: 'yesterday' })).body.message).toContain('`since` must be an RFC 3339 timestamp')
})

test('OpenAPI: the route takes RecoverRequest and answers 202 RecoverAccepted, its 400 codes described', async () => {
  const doc = (await ctx.call('GET', '/swagger/json', { token: null })).body
  const op = doc.paths['/teams/{teamId}/webhooks/{id}/recover'].post
  expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RecoverRequest' })
  expect(op.responses['202'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RecoverAccepted' })
  expect(op.responses['400'].description).toContain('bad_window')
  expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['202', '400', '401', '403', '404']))
  expect(doc.components.schemas.RecoverRequest.required).toEqual(['since'])
  expect(doc.components.schemas.RecoverAccepted.properties.queued.type).toBe('integer')
})
