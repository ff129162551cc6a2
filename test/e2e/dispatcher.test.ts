/**
 * End to end: the REAL dispatcher process (`bun dispatcher/main.ts`) on the database of a
 * `createApp` instance (the SQLite file, or PostgreSQL on that pass), delivering to real
 * receivers on 127.0.0.1.
 */
import { expect, test } from 'bun:test'
import { count, rows } from '../rows'
import { verify } from '@octokit/webhooks-methods'
import { collectOutput, TEAM, waitFor } from '../helpers'
import { verifySignature } from '../../receiver'
import { dispatcherFixture, root, kill } from './dispatcher-fixture'

const { cleanup, setup } = dispatcherFixture()

test('exact headers and payload, signature valid for our verifier and @octokit/webhooks-methods', async () => {
  const { rx, secret, spawn, publish } = await setup()
  spawn()
  await publish('pages/about', 'about')
  await waitFor(() => rx.requests.length > 0, 10_000, 'delivery')
  const [req] = rx.requests
  const body = JSON.parse(req!.body)
  const pick = (h: Record<string, string>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, h[k]]))
  expect(pick(req!.headers, ['content-type', 'user-agent', 'x-service-event', 'x-service-delivery'])).toEqual({
    'content-type': 'application/json; charset=utf-8', 'user-agent': 'Service-Webhooks/1.0',
    'x-service-event': 'content.published', 'x-service-delivery': body.eventId,
  })
  expect(req!.method).toBe('POST')
  expect(req!.path).toBe('/hook')
  expect(verifySignature(req!.body, req!.headers['x-service-signature'], secret)).toBe(true)
  expect(await verify(secret, req!.body, req!.headers['x-service-signature']!)).toBe(true)
  expect(body).toEqual({
    v: 2, eventType: 'content.published', eventId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    occurredAt: expect.stringMatching(/Z$/), teamId: TEAM, workspaceId: 'main', userId: 'u-editor', documentId: 'pages/about',
    collection: 'pages', locales: ['en'], status: 'published', url: '/about', urls: { en: '/about' }, previousUrls: [], scope: 'document',
  })
})

test('500 then 200: delivered on attempt 2 with the same eventId; 404 is final after one attempt', async () => {
  const { rx, spawn, publish, attempts } = await setup({ answers: [{ status: 500 }, { status: 200 }, { status: 404 }] })
  spawn()
  await publish('pages/a')
  await waitFor(() => rx.requests.length >= 2, 10_000, 'second attempt')
  const [first, second] = rx.requests
  expect(second!.headers['x-service-delivery']).toBe(first!.headers['x-service-delivery'])
  expect(second!.body).toBe(first!.body)
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000)
  await publish('pages/b')
  await waitFor(() => rx.requests.length >= 3, 10_000, '404 attempt')
  await Bun.sleep(2500) // a retry would come within 1-2 s
  expect(rx.requests).toHaveLength(3)
  expect(await attempts()).toEqual([
    { attempt: 1, statusCode: 500, error: null }, { attempt: 2, statusCode: 200, error: null }, { attempt: 1, statusCode: 404, error: null },
  ])
})

test('the process logs each delivery, at debug level too, and never the secret or the signature', async () => {
  const { rx, secret, hookId, publish, env } = await setup({ answers: [{ status: 500 }, { status: 200 }] })
  const p = Bun.spawn(['bun', 'dispatcher/main.ts'], { cwd: root, env: { ...env, LOG_LEVEL: 'debug' }, stdout: 'pipe', stderr: 'pipe' })
  cleanup.push(() => kill(p, 'SIGKILL'))
  const out = collectOutput(p.stdout)
  const err = collectOutput(p.stderr)
  await publish('pages/logged')
  await waitFor(() => rx.requests.length >= 2, 10_000, 'the retry')
  await waitFor(() => out.text.includes('"webhook delivered"'), 5000, 'the delivered line')
  await kill(p)
  const signature = rx.requests[0]!.headers['x-service-signature']!
  const text = out.text + err.text
  // The lines are there (a retry warned, the delivery told), with the ids that find them.
  expect(text).toContain('"webhook attempt failed, will retry"')
  expect(text).toContain(`"webhookId":"${hookId}"`)
  for (const hidden of [secret, signature, signature.slice('sha256='.length)]) expect(text).not.toContain(hidden)
})

test('a receiver slower than WEBHOOK_TIMEOUT_MS is retried', async () => {
  const { rx, spawn, publish, attempts } = await setup({ answers: [{ status: 200, delayMs: 1000 }, { status: 200 }] })
  spawn()
  await publish('pages/slow')
  await waitFor(async () => rx.requests.length >= 2 && (await attempts()).length >= 2, 10_000, 'retry after timeout')
  expect(await attempts()).toEqual([{ attempt: 1, statusCode: null, error: 'timeout after 300 ms' }, { attempt: 2, statusCode: 200, error: null }])
})

test('kill -9 mid-burst, restart: every event arrives', async () => {
  const { ctx, rx, spawn, publish } = await setup({ answers: [{ status: 200, delayMs: 150 }] })
  const ids = Array.from({ length: 30 }, (_, i) => `pages/burst-${i}`)
  for (const id of ids) await publish(id)
  const first = spawn()
  await waitFor(() => rx.requests.length > 0, 10_000, 'first delivery')
  first.kill('SIGKILL')
  await first.exited
  expect(await count(ctx.db, 'outbox', "status = 'delivered'")).toBeLessThan(ids.length) // it really died mid-burst
  // The attempts in flight at the kill: they reached the receiver (which answers after 150 ms) but
  // their rows are not delivered. Each must be sent again after the restart, same delivery id.
  const recorded = new Set((await rows<{ eventId: string }>(ctx.db, `SELECT event_id AS "eventId" FROM outbox WHERE status = 'delivered'`)).map((r) => r.eventId))
  const inFlight = [...new Set(rx.requests.map((r) => r.headers['x-service-delivery']!))].filter((id) => !recorded.has(id))
  expect(inFlight.length).toBeGreaterThan(0)
  const seen = rx.requests.length
  spawn()
  const docs = () => new Set(rx.requests.map((r) => JSON.parse(r.body).documentId))
  const notResent = () => {
    const resent = new Set(rx.requests.slice(seen).map((r) => r.headers['x-service-delivery']))
    return inFlight.filter((id) => !resent.has(id))
  }
  // Their leases (DISPATCHER_LEASE_MS, 1 s here) expire, then they are claimed again.
  await waitFor(() => ids.every((id) => docs().has(id)) && notResent().length === 0, 20_000, 'every event, the ones in flight again')
  expect([...docs()].filter((d) => d.startsWith('pages/burst-')).sort()).toEqual([...ids].sort())
  expect(notResent()).toEqual([])
})

test('a burst of site changes yields one site.changed', async () => {
  const { ctx, rx, spawn } = await setup({ events: ['site.changed'] })
  spawn()
  for (const [path, body] of [
    ['/locales', { locales: ['en', 'de'], defaultLocale: 'en' }],
    ['/localization', { fallbacks: { de: 'en' } }],
    ['/content-index', { fields: ['title'] }],
    ['/locales', { locales: ['en', 'de', 'fr'], defaultLocale: 'en' }],
  ] as const) expect((await ctx.call('PUT', `/teams/${TEAM}${path}`, { body })).status).toBe(200)
  await waitFor(() => rx.requests.length > 0, 10_000, 'site.changed')
  await Bun.sleep(800)
  expect(rx.requests.map((r) => JSON.parse(r.body)).map(({ eventType, status, scope, documentId }) => ({ eventType, status, scope, documentId }))).toEqual([
    { eventType: 'site.changed', status: 'locales', scope: 'site', documentId: null },
  ])
})

test('site.changed is never held longer than the max hold, however often things change', async () => {
  const { ctx, rx, spawn } = await setup({ events: ['site.changed'], env: { SITE_CHANGE_QUIET_MS: '1000', SITE_CHANGE_MAX_HOLD_MS: '1500' } })
  spawn()
  const t0 = Date.now()
  let n = 0
  while (rx.requests.length === 0 && Date.now() - t0 < 8000) {
    await ctx.call('PUT', `/teams/${TEAM}/localization`, { body: { fallbacks: n++ % 2 ? { de: 'en' } : { fr: 'en' } } })
    await Bun.sleep(100) // always inside the quiet period
  }
  expect(rx.requests).toHaveLength(1)
  expect(rx.requests[0]!.at - t0).toBeGreaterThanOrEqual(1500)
  expect(rx.requests[0]!.at - t0).toBeLessThan(3000)
})
