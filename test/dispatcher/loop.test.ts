/** The dispatcher loop driven in-process with `runOnce(now)` and a hand-moved clock. */
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { createTestContext, holdWriteLock, TEAM, TOKENS, waitFor, type TestContext } from '../helpers'
import { enqueueEvent } from '../../core/events/record'
import { samplePayload } from '../../core/webhooks/deliveries'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { createDispatcher } from '../../dispatcher/loop'
import { claimDue } from '../../db/outbox/claim'
import { recordAttempt, recordAttempts } from '../../db/outbox/record-attempts'
import { dueSchedules, publishDue } from '../../core/publish/scheduled'
import { createLogger } from '../../core/log'
import { verifySignature } from '../../receiver'

let ctx: TestContext
let rx: TestReceiver
let clock: number
let hook: { id: string; secret: string }

function dispatcher(over: Partial<Parameters<typeof createDispatcher>[0]> = {}) {
  return createDispatcher({
    db: ctx.db, log: createLogger('silent', 'test'), metrics: ctx.metrics, pollMs: 50, now: () => clock,
    allowPrivateTargets: true, timeoutMs: 2000, random: () => 0.5, siteChangeQuietMs: 30_000, siteChangeMaxHoldMs: 1_800_000, ...over,
  })
}
const payloads = () => rx.requests.map((r) => JSON.parse(r.body))
const page = (id: string, parent: string | null, locales: Record<string, { title: string; slug: string }>) =>
  ({ id, contentType: 'page', fields: { parent }, locales })
async function publish(doc: ReturnType<typeof page>) {
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
  expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [doc.id] } })).body[0].status).toBe(0)
}

beforeEach(async () => {
  ctx = await createTestContext()
  rx = startReceiver()
  clock = Date.now() + 1000
  const res = await ctx.call('POST', `/teams/${TEAM}/webhooks`, {
    token: TOKENS.webhooks, body: { label: 'site', provider: 'custom', target: rx.url, events: ['content.published', 'content.unpublished', 'site.changed'] },
  })
  hook = res.body
})
afterEach(() => {
  rx.stop()
  ctx.close()
})

test('a publish is delivered signed, with the spec headers and payload', async () => {
  await publish(page('pages/about', 'pages/home', { en: { title: 'About', slug: 'about' }, de: { title: 'Über', slug: 'ueber' } }))
  expect(await dispatcher().runOnce(clock)).toBe(1)
  const [req] = rx.requests
  const body = JSON.parse(req!.body)
  expect(req!.headers).toMatchObject({
    'content-type': 'application/json; charset=utf-8', 'user-agent': 'Service-Webhooks/1.0',
    'x-service-event': 'content.published', 'x-service-delivery': body.eventId,
  })
  expect(verifySignature(req!.body, req!.headers['x-service-signature'], hook.secret)).toBe(true)
  expect(body).toEqual({
    v: 2, eventType: 'content.published', eventId: expect.stringMatching(/^[0-9a-f-]{36}$/), occurredAt: expect.any(String),
    teamId: TEAM, workspaceId: 'main', userId: 'u-editor', documentId: 'pages/about', collection: 'pages', locales: ['de', 'en'], // sorted, in every event
    status: 'published', url: '/about', urls: { en: '/about' }, previousUrls: [], scope: 'document',
  })
  const log = await ctx.call('GET', `/teams/${TEAM}/webhooks/${hook.id}/deliveries`, { token: TOKENS.webhooks })
  expect(log.body[0]).toMatchObject({ status: 'delivered', attempts: [{ attempt: 1, trigger: 'scheduled', statusCode: 200, error: null }] })
})

test('500 then 200: retried after 1-2 s with the same eventId and bytes', async () => {
  rx.answers = [{ status: 500 }, { status: 200 }]
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  const d = dispatcher()
  await d.runOnce(clock)
  expect(await d.runOnce(clock + 999)).toBe(0) // not due yet
  expect(await d.runOnce(clock + 2000)).toBe(1)
  expect(rx.requests).toHaveLength(2)
  expect(rx.requests[1]!.body).toBe(rx.requests[0]!.body)
  expect(rx.requests[1]!.headers['x-service-delivery']).toBe(rx.requests[0]!.headers['x-service-delivery'])
  const log = await ctx.call('GET', `/teams/${TEAM}/webhooks/${hook.id}/deliveries`, { token: TOKENS.webhooks })
  expect(log.body[0].status).toBe('delivered')
  expect(log.body[0].attempts.map((a: any) => [a.attempt, a.statusCode, a.nextAttemptAt !== null])).toEqual([[1, 500, true], [2, 200, false]])
})

test('three 5xx attempts then failed; a 4xx is final at once; redeliver sends the same bytes again', async () => {
  rx.answers = [{ status: 503 }]
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  const d = dispatcher()
  for (const at of [clock, clock + 2000, clock + 5000, clock + 9000]) await d.runOnce(at)
  expect(rx.requests).toHaveLength(3)
  rx.answers = [{ status: 404 }]
  await publish(page('pages/b', 'pages/home', { en: { title: 'B', slug: 'b' } }))
  for (const at of [clock + 10_000, clock + 20_000]) await d.runOnce(at)
  expect(rx.requests).toHaveLength(4)
  const log = (await ctx.call('GET', `/teams/${TEAM}/webhooks/${hook.id}/deliveries`, { token: TOKENS.webhooks })).body
  expect(log.map((e: any) => [e.status, e.attempts.length])).toEqual([['failed', 1], ['failed', 3]])
  rx.answers = [{ status: 200 }]
  const again = await ctx.call('POST', `/teams/${TEAM}/webhooks/${hook.id}/deliveries/${log[1].eventId}/redeliver`, { token: TOKENS.webhooks })
  expect(again.status).toBe(202)
  await d.runOnce(Date.now() + 1000)
  expect(rx.requests[4]!.body).toBe(rx.requests[0]!.body)
  const after = (await ctx.call('GET', `/teams/${TEAM}/webhooks/${hook.id}/deliveries`, { token: TOKENS.webhooks })).body
  expect(after[1].status).toBe('delivered')
  expect(after[1].attempts.at(-1)).toMatchObject({ attempt: 1, trigger: 'manual', statusCode: 200 })
})

test('archive and delete send content.unpublished with the old paths', async () => {
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' }, fr: { title: 'A', slug: 'a-fr' } }))
  await publish(page('pages/b', 'pages/home', { en: { title: 'B', slug: 'b' } }))
  await ctx.call('POST', `/content/archive/${TEAM}`, { body: { ids: ['pages/a'] } })
  await ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/b'] } })
  await dispatcher().runOnce(clock)
  const byDoc = payloads().filter((p) => p.eventType === 'content.unpublished').map((p) => [p.documentId, p.status, p.url, p.urls, p.previousUrls, p.locales])
  // pages/home has no fr slug, so pages/a has no fr URL (contract.md page URLs).
  expect(byDoc).toEqual([['pages/a', 'archived', '/a', {}, ['/a'], []], ['pages/b', 'deleted', '/b', {}, ['/b'], []]])
})

test('a page below a deleted page has no URL, like one below an archived page: scope stays "document"', async () => {
  await publish(page('pages/team', 'pages/home', { en: { title: 'Team', slug: 'team' } }))
  await publish(page('pages/jobs', 'pages/team', { en: { title: 'Jobs', slug: 'jobs' } }))
  await publish(page('pages/uni', 'pages/home', { en: { title: 'Uni', slug: 'uni' } }))
  await publish(page('pages/c1', 'pages/uni', { en: { title: 'C1', slug: 'c1' } }))
  await ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/team'] } })
  await ctx.call('POST', `/content/archive/${TEAM}`, { body: { ids: ['pages/uni'] } })
  await dispatcher().runOnce(clock)
  rx.requests.length = 0
  for (const [id, parent] of [['pages/jobs', 'pages/team'], ['pages/c1', 'pages/uni']] as const) {
    expect((await ctx.call('POST', `/content/${TEAM}`, { body: page(`${id}/draft`, parent, { en: { title: 'Edited', slug: id.slice(6) } }) })).status).toBe(200)
  }
  expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/jobs', 'pages/c1'] } })).body.map((i: { status: number }) => i.status)).toEqual([0, 0])
  await dispatcher().runOnce(clock)
  const seen = payloads().map((p) => [p.documentId, p.url, p.urls, p.previousUrls, p.scope])
  expect(seen).toEqual([['pages/jobs', '', {}, [], 'document'], ['pages/c1', '', {}, [], 'document']])
})

test('moving a published page in place sends content.published with its and its children old paths', async () => {
  await publish(page('pages/company', 'pages/home', { en: { title: 'C', slug: 'company' } }))
  await publish(page('pages/about', 'pages/home', { en: { title: 'About', slug: 'about' } }))
  await publish(page('pages/team', 'pages/about', { en: { title: 'Team', slug: 'team' } }))
  await dispatcher().runOnce(clock)
  rx.requests.length = 0
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: page('pages/about', 'pages/company', { en: { title: 'About', slug: 'about' } }) })).status).toBe(200)
  await dispatcher().runOnce(clock)
  expect(payloads()).toEqual([expect.objectContaining({
    eventType: 'content.published', documentId: 'pages/about', userId: 'u-editor', locales: ['en'],
    url: '/company/about', urls: { en: '/company/about' }, previousUrls: ['/about', '/about/team'], scope: 'document',
  })])
})

test('a burst of site changes yields one site.changed after the quiet period; editor-only changes count for nothing', async () => {
  const d = dispatcher()
  const put = (path: string, body: unknown) => ctx.call('PUT', `/teams/${TEAM}${path}`, { body })
  expect((await put('/content-types/page', { collection: 'pages', urls: true, label: 'Pages', icon: 'doc', fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }, { name: 'sku' }] })).body.siteChanged).toBe(false)
  expect((await put('/locales', { locales: ['en', 'de'], defaultLocale: 'en' })).status).toBe(200)
  expect((await put('/localization', { fallbacks: { de: 'en' } })).status).toBe(200)
  expect((await put('/content-index', { fields: ['title'] })).body).toEqual({ indexGeneration: 1 })
  expect((await ctx.call('PUT', `/teams/${TEAM}/locales`, { token: TOKENS.webhooks, body: { locales: ['en'], defaultLocale: 'en' } })).status).toBe(403)
  const now = Date.now()
  await d.runOnce(now + 29_000)
  expect(rx.requests).toHaveLength(0)
  await d.runOnce(now + 31_000)
  await d.runOnce(now + 62_000)
  expect(payloads()).toEqual([{
    v: 2, eventType: 'site.changed', eventId: expect.any(String), occurredAt: expect.any(String), teamId: TEAM, workspaceId: 'main',
    userId: 'u-editor', documentId: null, collection: null, locales: [], status: 'index', url: '', urls: {}, previousUrls: [], scope: 'site',
  }])
})

test('an expired lease is claimable again; a lost lease writes nothing', async () => {
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  const [row] = claimDue(ctx.db.$client, { now: clock, leaseMs: 5000, limit: 10 }) // a dispatcher that then dies
  expect(row).toBeDefined()
  expect(await dispatcher().runOnce(clock + 1000)).toBe(0)
  expect(await dispatcher().runOnce(clock + 5000)).toBe(1)
  const stale = recordAttempt(ctx.db.$client, row!, { statusCode: 200, error: null, durationMs: 1, responseBody: '' }, { status: 'delivered' }, clock)
  expect(stale).toBe(false)
  expect(ctx.db.$client.query('SELECT COUNT(*) AS n FROM delivery_attempts').get()).toEqual({ n: 1 })
})

test('recording a batch: only rows whose lease still matches move on and get an attempt row', async () => {
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  await publish(page('pages/b', 'pages/home', { en: { title: 'B', slug: 'b' } }))
  const [first, second] = claimDue(ctx.db.$client, { now: clock, leaseMs: 5000, limit: 10 })
  expect(second).toBeDefined()
  // The first row's lease expires and another dispatcher takes it: our token no longer matches.
  ctx.db.$client.query('UPDATE outbox SET lease_token = ? WHERE seq = ?').run('someone-else', first!.seq)
  const ok = { statusCode: 200, error: null, refused: false, durationMs: 3, responseBody: 'ok' }
  const kept = recordAttempts(ctx.db.$client, [
    { row: first!, result: ok, step: { status: 'delivered' }, startedAt: clock },
    { row: second!, result: { ...ok, statusCode: 503 }, step: { status: 'pending', delayMs: 1500 }, startedAt: clock },
  ])
  expect(kept).toEqual([false, true])
  expect(ctx.db.$client.query('SELECT seq, status, attempts, next_attempt_at AS next, lease_token AS lease FROM outbox ORDER BY seq').all()).toEqual([
    { seq: first!.seq, status: 'pending', attempts: 0, next: expect.any(Number), lease: 'someone-else' },
    { seq: second!.seq, status: 'pending', attempts: 1, next: clock + 3 + 1500, lease: null },
  ])
  expect(ctx.db.$client.query('SELECT outbox_seq AS seq, attempt, status_code AS code, next_attempt_at AS next FROM delivery_attempts').all()).toEqual([
    { seq: second!.seq, attempt: 1, code: 503, next: clock + 3 + 1500 },
  ])
})

test('a slow receiver does not hold back another webhook', async () => {
  const slow = startReceiver([{ status: 200, delayMs: 1500 }])
  try {
    await ctx.call('PATCH', `/teams/${TEAM}/webhooks/${hook.id}`, { token: TOKENS.webhooks, body: { target: slow.url } })
    const fast = startReceiver()
    await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'fast', provider: 'custom', target: fast.url } })
    const d = dispatcher({ now: Date.now })
    d.start()
    const t0 = Date.now()
    await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
    while (fast.requests.length === 0 && Date.now() - t0 < 3000) await Bun.sleep(10)
    expect(Date.now() - t0).toBeLessThan(1000)
    await d.stop() // waits for the slow send in flight
    expect(slow.requests).toHaveLength(1)
    fast.stop()
  } finally {
    slow.stop()
  }
})

test('log lines carry eventId and webhookId, never the secret, signature or a provider token', async () => {
  const lines: string[] = []
  const log = createLogger('info', 'dispatcher', { write: (l: string) => void lines.push(l) })
  rx.answers = [{ status: 500 }, { status: 200 }]
  await ctx.call('POST', `/teams/${TEAM}/webhooks`, {
    token: TOKENS.webhooks, body: { label: 'gh', provider: 'github', target: 'https://api.github.com/repos/a/b/dispatches', options: { token: 'ghp_never_logged' } },
  })
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  // GitHub itself is never called from tests: its requests are answered here.
  const stubGithub = (async (url: string | URL | Request, init?: RequestInit) =>
    String(url).startsWith('https://api.github.com/') ? new Response(null, { status: 204 }) : fetch(url, init)) as typeof fetch
  const d = dispatcher({ log, fetch: stubGithub })
  await d.runOnce(clock)
  await d.runOnce(clock + 2000)
  const text = lines.join('')
  const signature = rx.requests[0]!.headers['x-service-signature']!
  expect(text).toContain('"eventId"')
  expect(text).toContain('"webhookId"')
  expect(text).toContain('"component":"delivery"')
  for (const secret of [hook.secret, signature, signature.slice(7), 'ghp_never_logged']) expect(text).not.toContain(secret)
})

test('a webhook deleted during a send: its answer is dropped with an info line, not a lost-lease warning', async () => {
  const lines: string[] = []
  const log = createLogger('info', 'dispatcher', { write: (l: string) => void lines.push(l) })
  rx.answers = [{ status: 200, delayMs: 300 }]
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  const sending = dispatcher({ log }).runOnce(clock)
  await waitFor(() => rx.requests.length > 0, 5000, 'the send reached the receiver')
  expect((await ctx.call('DELETE', `/teams/${TEAM}/webhooks/${hook.id}`, { token: TOKENS.webhooks })).status).toBe(204)
  await sending
  const entries = lines.map((l) => JSON.parse(l)).filter((l) => l.component === 'delivery')
  expect(entries.map((l) => [l.level, l.msg, l.outcome])).toEqual([[30, 'the webhook was deleted during the send; the attempt is not recorded', 'dropped']])
  expect(ctx.db.$client.query('SELECT COUNT(*) AS n FROM delivery_attempts').get()).toEqual({ n: 0 })
})

test('every log line carries exactly one component: dispatcher, or delivery with eventId and webhookId', async () => {
  const lines: string[] = []
  const log = createLogger('info', 'dispatcher', { write: (l: string) => void lines.push(l) })
  rx.answers = [{ status: 500 }, { status: 200 }]
  await publish(page('pages/c', 'pages/home', { en: { title: 'C', slug: 'c' } }))
  const at = new Date(clock + 500).toISOString()
  expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/c', publishAt: at } })).status).toBe(201)
  const d = dispatcher({ log })
  await d.runOnce(clock) // attempt 1 answered 500: retry
  await d.runOnce(clock + 2000) // the scheduled publish, attempt 2 delivered, the scheduled one's event
  expect(lines.length).toBeGreaterThanOrEqual(4)
  const seen = lines.map((line) => {
    // JSON.parse keeps the last of two equal keys, so count them in the raw text.
    const keys = line.match(/"component":/g)?.length ?? 0
    const { component, eventId, webhookId, msg } = JSON.parse(line)
    return { keys, component, hasIds: typeof eventId === 'string' && webhookId === hook.id, msg }
  })
  for (const s of seen) expect(s).toEqual({ keys: 1, component: s.component, hasIds: s.component === 'delivery', msg: s.msg })
  expect(seen.map((s) => [s.component, s.msg])).toEqual(expect.arrayContaining([
    ['delivery', 'webhook attempt failed, will retry'], ['delivery', 'webhook delivered'], ['dispatcher', 'scheduled publish'],
  ]))
})

test('a scheduled publish is reported with userId null', async () => {
  await publish(page('pages/s', 'pages/home', { en: { title: 'S', slug: 's' } }))
  await dispatcher().runOnce(clock)
  rx.requests.length = 0
  await ctx.call('POST', `/content/${TEAM}`, { body: page('pages/s/draft', 'pages/home', { en: { title: 'S2', slug: 's2' } }) })
  const at = new Date(clock + 60_000).toISOString()
  expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/s', publishAt: at } })).status).toBe(201)
  await dispatcher().runOnce(clock + 60_000)
  await dispatcher().runOnce(clock + 60_000)
  expect(payloads().map(({ eventType, userId, documentId, urls, previousUrls }) => ({ eventType, userId, documentId, urls, previousUrls }))).toEqual([
    { eventType: 'content.published', userId: null, documentId: 'pages/s', urls: { en: '/s2' }, previousUrls: ['/s'] },
  ])
})

test('schedules due together publish a page after its parent, so the child\'s event names its path', async () => {
  await ctx.call('POST', `/content/${TEAM}`, { body: page('pages/sp/draft', 'pages/home', { en: { title: 'Section', slug: 'sp' } }) })
  await ctx.call('POST', `/content/${TEAM}`, { body: page('pages/sk/draft', 'pages/sp', { en: { title: 'Kid', slug: 'kid' } }) })
  const at = new Date(clock + 60_000).toISOString()
  // The child scheduled first: claimed first, it was published first, while its parent was not live.
  for (const id of ['pages/sk', 'pages/sp']) expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id, publishAt: at } })).status).toBe(201)
  await dispatcher().runOnce(clock + 60_000)
  await dispatcher().runOnce(clock + 60_000)
  expect(payloads().map(({ documentId, urls, scope }) => ({ documentId, urls, scope }))).toEqual([
    { documentId: 'pages/sp', urls: { en: '/sp' }, scope: 'document' },
    { documentId: 'pages/sk', urls: { en: '/sp/kid' }, scope: 'document' },
  ])
})

test('a schedule replaced between the read of due schedules and its publish is not published early, then once at its new time', async () => {
  await publish(page('pages/r', 'pages/home', { en: { title: 'R1', slug: 'r' } }))
  const schedule = async (title: string, at: number) => {
    await ctx.call('POST', `/content/${TEAM}`, { body: page('pages/r/draft', 'pages/home', { en: { title, slug: 'r' } }) })
    expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/r', publishAt: new Date(at).toISOString() } })).status).toBe(201)
  }
  await schedule('R2', clock + 60_000)
  // The dispatcher reads it as due; before its publish transaction, an editor reschedules with new content.
  const due = dueSchedules(ctx.db, clock + 60_000)
  expect(due.map((s) => s.documentId)).toEqual(['pages/r'])
  await schedule('R3', clock + 120_000)
  expect(publishDue(ctx.db, null, due[0]!, clock + 60_000)).toBeNull()
  const live = async () => {
    const res = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/r`)
    return { title: (await ctx.call('GET', `/content/${TEAM}?id=pages/r`)).body.locales.en.title, versions: res.body.rows.length }
  }
  expect(await live()).toEqual({ title: 'R1', versions: 1 })
  await dispatcher().runOnce(clock + 120_000)
  await dispatcher().runOnce(clock + 200_000)
  expect(await live()).toEqual({ title: 'R3', versions: 2 })
})

/** A receiver answering after `delayMs`, recording how many requests it had open at most. */
function countingReceiver(delayMs: number) {
  let open = 0
  const state = { maxOpen: 0, count: 0 }
  const server = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    async fetch(req) {
      open++
      state.maxOpen = Math.max(state.maxOpen, open)
      await req.text()
      await Bun.sleep(delayMs)
      open--
      state.count++
      return new Response('ok')
    },
  })
  return { state, url: `http://127.0.0.1:${server.port}/hook`, stop: () => server.stop(true) }
}
const enqueue = (n: number) =>
  ctx.db.transaction((tx) => {
    for (let i = 0; i < n; i++) enqueueEvent(tx, samplePayload({ id: TEAM, workspaceId: 'main', defaultLocale: 'en' }, 'content.published', 'u-editor'))
  })
const outboxState = () =>
  ctx.db.$client.query(`SELECT status, COUNT(*) AS n, COUNT(lease_token) AS leased FROM outbox GROUP BY status ORDER BY status`).all()

test('rows claimed ahead of free slots: never more than perWebhook in flight, every row sent once and recorded', async () => {
  const rx2 = countingReceiver(2)
  try {
    await ctx.call('PATCH', `/teams/${TEAM}/webhooks/${hook.id}`, { token: TOKENS.webhooks, body: { target: rx2.url } })
    enqueue(120)
    const d = dispatcher({ now: Date.now, perWebhook: 4, concurrency: 64, leaseMs: 60_000 })
    d.start()
    await waitFor(() => rx2.state.count >= 120, 10_000, 'all deliveries')
    await d.stop()
    expect(rx2.state.maxOpen).toBeLessThanOrEqual(4)
    expect(rx2.state.count).toBe(120)
    expect(outboxState()).toEqual([{ status: 'delivered', n: 120, leased: 0 }])
    expect(ctx.db.$client.query('SELECT COUNT(*) AS n, COUNT(DISTINCT outbox_seq) AS rows FROM delivery_attempts').get()).toEqual({ n: 120, rows: 120 })
  } finally {
    rx2.stop()
  }
})

test('stop() gives rows claimed ahead back at once (no lease left to expire)', async () => {
  const rx2 = countingReceiver(20)
  try {
    await ctx.call('PATCH', `/teams/${TEAM}/webhooks/${hook.id}`, { token: TOKENS.webhooks, body: { target: rx2.url } })
    enqueue(200)
    const d = dispatcher({ now: Date.now, perWebhook: 2, concurrency: 64, leaseMs: 60_000 })
    d.start()
    await waitFor(() => rx2.state.count >= 10, 10_000, 'a few deliveries')
    await d.stop()
    const rows = outboxState() as { status: string; n: number; leased: number }[]
    expect(rows.every((r) => r.leased === 0)).toBe(true)
    expect(rows.reduce((a, r) => a + r.n, 0)).toBe(200)
    const delivered = rows.find((r) => r.status === 'delivered')!.n
    expect(delivered).toBe(rx2.state.count)
    expect(delivered).toBeLessThan(200)
  } finally {
    rx2.stop()
  }
})

test('an idle pass takes no write lock: an api writer holding it never stalls the dispatcher', async () => {
  const writer = holdWriteLock(ctx.path) // as the api does for every write
  try {
    const lines: string[] = []
    const d = dispatcher({ log: createLogger('warn', 'test', { write: (l: string) => void lines.push(l) }) })
    const started = performance.now()
    expect(await d.runOnce(clock)).toBe(0)
    // Waiting for the lock would take the busy timeout (10 s) and log a failed step.
    expect(performance.now() - started).toBeLessThan(1000)
    expect(lines).toEqual([])
  } finally {
    writer.release()
  }
})

/**
 * Five hung receivers (16 sends each would take 80 of the 64 shared slots) and one healthy
 * webhook that gets an event after they hung: it is delivered about STALL_MS (1 s) later, not
 * when the hung sends time out. `maxStalled: 0` turns the release off: then it waits.
 */
async function healthyBehindHungReceivers(maxStalled?: number): Promise<number> {
  const hung = startReceiver([{ status: 200, delayMs: 20_000 }])
  const fast = startReceiver()
  try {
    await ctx.call('PATCH', `/teams/${TEAM}/webhooks/${hook.id}`, { token: TOKENS.webhooks, body: { target: hung.url } })
    for (let i = 0; i < 4; i++) {
      await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: `hung ${i}`, provider: 'custom', target: hung.url } })
    }
    enqueue(20)
    const d = dispatcher({ now: Date.now, timeoutMs: 3000, concurrency: 64, perWebhook: 16, maxStalled })
    d.start()
    await waitFor(() => hung.requests.length >= 64, 5000, 'every shared slot taken by a hung receiver')
    await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'healthy', provider: 'custom', target: fast.url } })
    const t0 = Date.now()
    enqueue(1)
    await waitFor(() => fast.requests.length >= 1, 10_000, 'the healthy webhook delivered')
    const waited = Date.now() - t0
    await d.stop()
    return waited
  } finally {
    hung.stop()
    fast.stop()
  }
}

test('hung receivers hold their own slots, not the shared ones: a healthy webhook waits about 1 s, not the timeout', async () => {
  const waited = await healthyBehindHungReceivers()
  expect(waited).toBeLessThan(2000)
}, 20_000)

test('with no room for stalled sends (maxStalled 0) the healthy webhook waits for the hung sends to time out', async () => {
  const waited = await healthyBehindHungReceivers(0)
  expect(waited).toBeGreaterThanOrEqual(2000)
}, 20_000)

test('with the write lock held by another process, a pass with work due writes nothing and returns at once; the next pass does it all', async () => {
  await publish(page('pages/locked', 'pages/home', { en: { title: 'L', slug: 'locked' } }))
  const draft = page('pages/sched/draft', 'pages/home', { en: { title: 'S', slug: 'sched' } })
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: draft })).status).toBe(200)
  expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/sched', publishAt: new Date(clock + 1000).toISOString() } })).status).toBe(201)
  expect((await ctx.call('PUT', `/teams/${TEAM}/locales`, { body: { locales: ['en', 'de'], defaultLocale: 'en' } })).status).toBe(200)
  const at = clock + 60_000 // the schedule and the site change's quiet window are both due
  const lines: string[] = []
  const d = dispatcher({ log: createLogger('info', 'test', { write: (l: string) => void lines.push(l) }) })
  const other = holdWriteLock(ctx.path)
  const t = performance.now()
  try {
    expect(await d.runOnce(at)).toBe(0)
  } finally {
    other.release()
  }
  expect(performance.now() - t).toBeLessThan(1000) // waiting would take busy_timeout, 10 s
  expect(lines).toEqual([])
  expect(rx.requests).toHaveLength(0)
  expect(await d.runOnce(at)).toBe(3)
  expect(payloads().map((p) => [p.eventType, p.documentId]).sort()).toEqual([
    ['content.published', 'pages/locked'], ['content.published', 'pages/sched'], ['site.changed', null],
  ])
})
