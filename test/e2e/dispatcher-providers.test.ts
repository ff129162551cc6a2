/**
 * End to end: the REAL dispatcher process (`bun dispatcher/main.ts`) on the database of a
 * `createApp` instance (the SQLite file, or PostgreSQL on that pass), delivering to real
 * receivers on 127.0.0.1.
 */
import { expect, test } from 'bun:test'
import { row, run } from '../rows'
import { TEAM, TOKENS, waitFor } from '../helpers'
import { startReceiver, type Answer } from '../test-receiver'
import { verifySignature } from '../../receiver'
import { dispatcherFixture } from './dispatcher-fixture'

const { cleanup, setup } = dispatcherFixture()

test('providers through the process: netlify and vercel build hooks get an empty signed body, github a repository_dispatch with its token', async () => {
  const { ctx, spawn, publish } = await setup()
  /** A webhook of `provider` and its own receiver (the target, unless one is given). */
  const make = async (provider: string, extra: { target?: string; options?: object } = {}) => {
    const rx = startReceiver()
    cleanup.push(() => rx.stop())
    const res = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: provider, provider, target: rx.url, ...extra } })
    expect(res.status).toBe(201)
    return { rx, secret: res.body.secret as string, id: res.body.id as string }
  }
  const netlify = await make('netlify')
  const vercel = await make('vercel')
  // A github webhook must target api.github.com; pointed at the local receiver afterwards, as the
  // SSRF tests do, so the request the process builds and sends can be read.
  const github = await make('github', { target: 'https://api.github.com/repos/acme/site/dispatches', options: { token: 'ghp_e2eToken123', eventType: 'cms-publish' } })
  await run(ctx.db, 'UPDATE webhooks SET target = ? WHERE id = ?', github.rx.url, github.id)
  spawn()
  await publish('pages/providers', 'providers')
  await waitFor(() => [netlify, vercel, github].every((h) => h.rx.requests.length > 0), 10_000, 'a request at each provider')
  const eventId = (await row<{ id: string }>(ctx.db, "SELECT event_id AS id FROM outbox o JOIN webhooks w ON w.id = o.webhook_id WHERE w.provider = 'netlify'"))!.id
  for (const h of [netlify, vercel, github]) {
    const [req] = h.rx.requests
    expect(h.rx.requests).toHaveLength(1)
    expect(req!.method).toBe('POST')
    expect(verifySignature(req!.body, req!.headers['x-service-signature'], h.secret)).toBe(true)
    expect(req!.headers['x-service-delivery']).toBe(eventId) // one event, the same id at every webhook
    expect(req!.headers['x-service-event']).toBe('content.published')
    expect(req!.headers['user-agent']).toBe('Service-Webhooks/1.0')
  }
  expect(netlify.rx.requests[0]!.path).toBe('/hook?trigger_title=content.published+pages%2Fproviders')
  expect(netlify.rx.requests[0]!.body).toBe('{}')
  expect(vercel.rx.requests[0]!.path).toBe('/hook')
  expect(vercel.rx.requests[0]!.body).toBe('{}')
  const gh = github.rx.requests[0]!
  expect([gh.headers.authorization, gh.headers.accept, gh.headers['x-github-api-version']]).toEqual(['Bearer ghp_e2eToken123', 'application/vnd.github+json', '2022-11-28'])
  expect(JSON.parse(gh.body)).toEqual({
    event_type: 'cms-publish',
    client_payload: {
      v: 2, eventType: 'content.published', eventId, teamId: TEAM, documentId: 'pages/providers', status: 'published',
      url: '/providers', urls: { en: '/providers' }, previousUrls: [], scope: 'document',
    },
  })
})

test('a row claimed ahead goes out as its webhook is when it is sent: after a PATCH of target and secret nothing more reaches the old target, after a DELETE nothing more at all (beyond the sends on the wire)', async () => {
  // Room to claim ahead (lease - timeout - 2 s >= 3 s): 2 sends in flight, 8 more claimed per webhook.
  const slow: Answer[] = [{ status: 200, delayMs: 150 }]
  const { ctx, rx, hookId, spawn, publish } = await setup({ answers: slow, env: { DISPATCHER_PER_WEBHOOK: '2', WEBHOOK_TIMEOUT_MS: '2000', DISPATCHER_LEASE_MS: '10000' } })
  const moved = startReceiver(slow)
  cleanup.push(() => moved.stop())
  spawn()
  await publish('pages/warm') // answered fast: this webhook's rows are claimed ahead from now on
  await waitFor(() => rx.requests.length === 1, 10_000, 'warm-up delivery')
  const burst = async (n: number) => {
    for (let i = 0; i < n; i++) await ctx.call('POST', `/content/${TEAM}`, { body: { id: `pages/b${i}`, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'B', slug: `b${i}` } } } })
    const res = await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: Array.from({ length: n }, (_, i) => `pages/b${i}`) } })
    expect(res.body.every((item: { status: number }) => item.status === 0)).toBe(true)
  }
  await burst(30)
  await waitFor(() => rx.requests.length >= 4, 10_000, 'the burst under way')
  const newSecret = 'a-new-secret-of-at-least-thirty-two-characters'
  const patched = await ctx.call('PATCH', `/teams/${TEAM}/webhooks/${hookId}`, { token: TOKENS.webhooks, body: { target: moved.url, secret: newSecret } })
  expect(patched.status).toBe(200)
  const oldAtPatch = rx.requests.length
  await waitFor(() => rx.requests.length - 1 + moved.requests.length >= 30, 20_000, 'the burst delivered')
  // Only sends already on the wire (2) may still reach the old target.
  expect(rx.requests.length - oldAtPatch).toBeLessThanOrEqual(2)
  expect(moved.requests.length).toBeGreaterThanOrEqual(20)
  for (const r of moved.requests) expect(verifySignature(r.body, r.headers['x-service-signature'], newSecret)).toBe(true)

  await burst(30) // republished: 30 more events
  await waitFor(() => moved.requests.length >= 34, 10_000, 'the second burst under way')
  expect((await ctx.call('DELETE', `/teams/${TEAM}/webhooks/${hookId}`, { token: TOKENS.webhooks })).status).toBe(204)
  const atDelete = moved.requests.length
  await Bun.sleep(1500)
  expect(moved.requests.length - atDelete).toBeLessThanOrEqual(2)
}, 60_000)
