/**
 * Error rows of spec.md, contract.md and docs/errors.md asserted whole: status, Content-Type, body
 * shape and code together (other files test the same refusals for what they leave unchanged).
 */
import { run } from '../rows'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM, TOKENS, type TestContext } from '../helpers'
import { applySnapshot, applyVersion, ID, ok, publishedTwice } from '../core/restore/fixtures'
import { startReceiver } from '../test-receiver'

let ctx: TestContext
let v1: string
beforeAll(async () => { ctx = await createTestContext(); ({ v1 } = await publishedTwice(ctx)) })
afterAll(() => ctx.close())

const JSON_CT = /^application\/json/
function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect({ status: res.status, ct: JSON_CT.test(res.headers.get('content-type') ?? ''), body: res.body })
    .toEqual({ status, ct: true, body: { error: code, message: expect.any(String) } })
}
const SNAP = `${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA`

test('the version list of a soft-deleted canonical is 404 not_found', async () => {
  await ok(ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/gone', contentType: 'page' } }))
  await ok(ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/gone'] } }))
  await ok(ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/gone'] } }))
  expectError(await ctx.call('GET', `/content/versions/${TEAM}?id=pages/gone`), 404, 'not_found')
})

test('version endpoint errors: missing_id, sibling_id, not_content, bad_paging, bad_reference, not_found', async () => {
  expectError(await ctx.call('GET', `/content/versions/${TEAM}`), 400, 'missing_id')
  expectError(await ctx.call('GET', `/content/version/${TEAM}?id=${enc(ID + '/draft')}&version=QQ`), 400, 'sibling_id')
  expectError(await ctx.call('GET', `/content/version/${TEAM}?id=${enc(ID + '/activity')}&version=QQ`), 400, 'not_content')
  expectError(await ctx.call('GET', `/content/versions/${TEAM}?id=${ID}&start=-1`), 400, 'bad_paging')
  expectError(await ctx.call('GET', `/content/version/${TEAM}?id=${ID}`), 400, 'bad_reference') // docs/api/versions.md#errors: missing version
  expectError(await ctx.call('GET', `/content/version/${TEAM}?id=${ID}&version=${enc(Buffer.from('A:999999-x').toString('base64url'))}`), 404, 'not_found')
})

test('an unknown token is 401 unauthorized, a missing capability 403 forbidden', async () => {
  expectError(await ctx.call('GET', `/content/versions/${TEAM}?id=${ID}`, { token: 'not-a-token' }), 401, 'unauthorized')
  expectError(await ctx.call('GET', `/content/versions/${TEAM}?id=${ID}`, { token: TOKENS.webhooks }), 403, 'forbidden')
  expectError(await ctx.call('POST', `/content/publish/${TEAM}`, { token: TOKENS.translator, body: { ids: [ID] } }), 403, 'forbidden')
})

test('apply-snapshot: missing_snapshot_id and mismatch', async () => {
  const a = await applySnapshot(ctx, { documentId: ID })
  expectError(a, 400, 'missing_snapshot_id')
  const b = await applySnapshot(ctx, { snapshotId: SNAP, documentId: 'pages/home' })
  expectError(b, 400, 'mismatch')
})

test('history: missing_id, sibling_id, 401, 403', async () => {
  expectError(await ctx.call('GET', `/content/history/${TEAM}`), 400, 'missing_id')
  expectError(await ctx.call('GET', `/content/history/${TEAM}?id=${enc(ID + '/draft')}`), 400, 'sibling_id')
  expectError(await ctx.call('GET', `/content/history/${TEAM}?id=${ID}`, { token: null }), 401, 'unauthorized')
  expectError(await ctx.call('GET', `/content/history/${TEAM}?id=${ID}`, { token: TOKENS.outsider }), 403, 'forbidden')
})

test('snapshot rename and revoke: missing_id, invalid_id, not_found, invalid_name', async () => {
  expectError(await ctx.call('PATCH', `/content/snapshots/${TEAM}`, { body: { name: 'x' } }), 400, 'missing_id')
  expectError(await ctx.call('PATCH', `/content/snapshots/${TEAM}?id=${enc(ID)}`, { body: { name: 'x' } }), 400, 'invalid_id')
  expectError(await ctx.call('PATCH', `/content/snapshots/${TEAM}?id=${enc(SNAP)}`, { body: { name: 'x' } }), 404, 'not_found')
  expectError(await ctx.call('PATCH', `/content/snapshots/${TEAM}?id=${enc(SNAP)}`, { body: { name: 'x'.repeat(201) } }), 400, 'invalid_name')
  expectError(await ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: {} }), 400, 'missing_id')
  expectError(await ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: `${ID}/draft` } }), 400, 'invalid_id')
  expectError(await ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: SNAP } }), 404, 'not_found')
})

test('document reads: missing_id, not_found (also for a hostile id); 413 payload_too_large', async () => {
  expectError(await ctx.call('GET', `/content/${TEAM}`), 400, 'missing_id')
  expectError(await ctx.call('GET', `/content/${TEAM}?id=nope`), 404, 'not_found')
  expectError(await ctx.call('GET', `/content/${TEAM}?id=${enc('../../x')}`), 404, 'not_found')
  expectError(await ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/x', contentType: 'page', locales: { en: { title: 'x'.repeat(1_100_000) } } } }), 413, 'payload_too_large')
})

test('webhook management: invalid_body, invalid_target, not_found, 401, 403, invalid_event_type, delivery_in_progress', async () => {
  const base = `/teams/${TEAM}/webhooks`
  const w = { token: TOKENS.webhooks }
  expectError(await ctx.call('POST', base, { ...w, body: { label: 'x', provider: 'ftp', target: 'https://a.example/x' } }), 400, 'invalid_body')
  expectError(await ctx.call('POST', base, { ...w, body: { label: 'x', provider: 'custom', target: 'not a url' } }), 400, 'invalid_target')
  expectError(await ctx.call('GET', `${base}/nope`, w), 404, 'not_found')
  expectError(await ctx.call('DELETE', `${base}/nope`, w), 404, 'not_found')
  expectError(await ctx.call('POST', `${base}/nope/test`, w), 404, 'not_found')
  expectError(await ctx.call('POST', base, { token: null, body: {} }), 401, 'unauthorized')
  expectError(await ctx.call('GET', base, { token: TOKENS.translator }), 403, 'forbidden')
  const hook = await ok(ctx.call('POST', base, { ...w, body: { label: 'x', provider: 'custom', target: 'http://127.0.0.1:4629/x' } }), 201)
  expectError(await ctx.call('POST', `${base}/${hook.id}/test?eventType=nope`, w), 400, 'invalid_event_type')
  expectError(await ctx.call('POST', `${base}/${hook.id}/deliveries/nope/redeliver`, w), 404, 'not_found')
  // 409 delivery_in_progress: an outbox row under a live lease (what a dispatcher claim leaves)
  await ok(ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [ID] } }))
  const [delivery] = await ok(ctx.call('GET', `${base}/${hook.id}/deliveries`, w))
  await run(ctx.db, 'UPDATE outbox SET lease_token = ?, lease_expires_at = ? WHERE event_id = ? AND webhook_id = ?', 'lease', Date.now() + 60_000, delivery.eventId, hook.id)
  expectError(await ctx.call('POST', `${base}/${hook.id}/deliveries/${delivery.eventId}/redeliver`, w), 409, 'delivery_in_progress')
})

test('a restore under a stale If-Match is the 409 batch list, its reason saying so', async () => {
  const res = await applyVersion(ctx, { kind: 'revision', documentId: ID, version: v1 }, { headers: { 'if-match': '"A:1-nonode"' } })
  expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: [{ id: ID, status: 1, reason: 'The draft is not at the version If-Match names: it changed since you read it, or there is no draft. Save your pending edits, re-read it and retry.' }] })
})

test("a message never sends a client's long key or value back whole (an unknown 10 KB key, a 10 KB fallback)", async () => {
  const long = 'k'.repeat(10_000)
  const settings = { token: TOKENS.editor }
  for (const [method, url, body, opts] of [
    ['POST', `/content/${TEAM}`, { id: 'pages/echo', contentType: 'page', [long]: 1 }, {}],
    ['POST', `/content/${TEAM}`, { id: 'pages/echo', contentType: 'page', locales: { [long]: 5 } }, {}],
    ['POST', `/teams/${TEAM}/webhooks`, { label: 'x', provider: 'custom', target: 'https://example.com/h', [long]: 1 }, { token: TOKENS.webhooks }],
    ['PUT', `/teams/${TEAM}/localization`, { fallbacks: { en: long } }, settings],
  ] as const) {
    const res = await ctx.call(method, url, { body, ...opts })
    expectError(res, 400, 'invalid_body')
    expect({ url, length: res.body.message.length < 300, echoed: res.body.message.includes('kkk...') }).toEqual({ url, length: true, echoed: true })
  }
})

test('a required parameter left out is named as the routes name an empty one, not in the validator\'s words', async () => {
  for (const url of [`/content/${TEAM}`, `/content/versions/${TEAM}`, `/content/version/${TEAM}?version=x`, `/content/history/${TEAM}`]) {
    for (const query of ['', url.includes('?') ? '&id=' : '?id=']) {
      const res = await ctx.call('GET', url + query)
      expect({ url, query, status: res.status, body: res.body }).toEqual({ url, query, status: 400, body: { error: 'missing_id', message: 'Query parameter `id` is required.' } })
    }
  }
  const body = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'x', target: 'https://example.com/h' } })
  expect(body.body).toEqual({ error: 'invalid_body', message: '`provider` is required.' })
})

test('a webhook or event id in the path that is no percent-encoded UTF-8 names nothing: 404 not_found (a content type name stays 400 invalid_body, as any wrong name)', async () => {
  const hook = (await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'x', provider: 'custom', target: 'https://example.com/h' } })).body.id
  for (const [method, url, token] of [
    ['GET', `/teams/${TEAM}/webhooks/%ED%A0%80`, TOKENS.webhooks],
    ['PATCH', `/teams/${TEAM}/webhooks/%FF%FE`, TOKENS.webhooks],
    ['DELETE', `/teams/${TEAM}/webhooks/%FF`, TOKENS.webhooks],
    ['POST', `/teams/${TEAM}/webhooks/${hook}/deliveries/%ED%A0%80/redeliver`, TOKENS.webhooks],
  ] as const) {
    const res = await ctx.call(method, url, { token, body: method === 'PATCH' ? {} : undefined })
    expect({ method, url, status: res.status, body: res.body }).toEqual({ method, url, status: 404, body: { error: 'not_found', message: 'Not found: a path segment is not valid percent-encoded UTF-8.' } })
  }
  expect((await ctx.call('GET', `/teams/${TEAM}/content-types/%FF%FE`)).body.error).toBe('invalid_body')
})

test('an unknown query parameter is ignored on every route, snapshot rename and webhook test send too', async () => {
  // A receiver on this machine: the test send really goes out, and nowhere else.
  const rx = startReceiver()
  const hook = (await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'x', provider: 'custom', target: rx.url } })).body.id
  const rename = await ctx.call('PATCH', `/content/snapshots/${TEAM}?id=${enc(SNAP)}&zz=1`, { body: { name: 'x' } })
  expect({ status: rename.status, body: rename.body }).toEqual({ status: 404, body: { error: 'not_found', message: 'Snapshot not found.' } })
  const send = await ctx.call('POST', `/teams/${TEAM}/webhooks/${hook}/test?zz=1&eventType=content.published`, { token: TOKENS.webhooks })
  try {
    expect(send.status).toBe(200)
    expect(send.body).toMatchObject({ delivered: true, status: 200 })
    expect(rx.requests.map((r) => r.headers['x-service-event'])).toEqual(['content.published'])
  } finally {
    rx.stop()
  }
})
