/** The dispatcher loop driven in-process with `runOnce(now)` and a hand-moved clock. */
import { sqliteOf, sqliteOnly } from '../dialect'
import { expect, test } from 'bun:test'
import { TEAM, TOKENS } from '../helpers'
import { claimDue } from '../../db/outbox/claim'
import { recordAttempt, recordAttempts } from '../../db/outbox/record-attempts'
import { verifySignature } from '../../receiver'
import { loopFixture, page } from './loop-fixture'

const fx = loopFixture()
const { dispatcher, payloads, publish } = fx

test('a publish is delivered signed, with the spec headers and payload', async () => {
  await publish(page('pages/about', 'pages/home', { en: { title: 'About', slug: 'about' }, de: { title: 'Über', slug: 'ueber' } }))
  expect(await dispatcher().runOnce(fx.clock)).toBe(1)
  const [req] = fx.rx.requests
  const body = JSON.parse(req!.body)
  expect(req!.headers).toMatchObject({
    'content-type': 'application/json; charset=utf-8', 'user-agent': 'Service-Webhooks/1.0',
    'x-service-event': 'content.published', 'x-service-delivery': body.eventId,
  })
  expect(verifySignature(req!.body, req!.headers['x-service-signature'], fx.hook.secret)).toBe(true)
  expect(body).toEqual({
    v: 2, eventType: 'content.published', eventId: expect.stringMatching(/^[0-9a-f-]{36}$/), occurredAt: expect.any(String),
    teamId: TEAM, workspaceId: 'main', userId: 'u-editor', documentId: 'pages/about', collection: 'pages', locales: ['de', 'en'], // sorted, in every event
    status: 'published', url: '/about', urls: { en: '/about' }, previousUrls: [], scope: 'document',
  })
  const log = await fx.ctx.call('GET', `/teams/${TEAM}/webhooks/${fx.hook.id}/deliveries`, { token: TOKENS.webhooks })
  expect(log.body[0]).toMatchObject({ status: 'delivered', attempts: [{ attempt: 1, trigger: 'scheduled', statusCode: 200, error: null }] })
})

test('500 then 200: retried after 1-2 s with the same eventId and bytes', async () => {
  fx.rx.answers = [{ status: 500 }, { status: 200 }]
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  const d = dispatcher()
  await d.runOnce(fx.clock)
  expect(await d.runOnce(fx.clock + 999)).toBe(0) // not due yet
  expect(await d.runOnce(fx.clock + 2000)).toBe(1)
  expect(fx.rx.requests).toHaveLength(2)
  expect(fx.rx.requests[1]!.body).toBe(fx.rx.requests[0]!.body)
  expect(fx.rx.requests[1]!.headers['x-service-delivery']).toBe(fx.rx.requests[0]!.headers['x-service-delivery'])
  const log = await fx.ctx.call('GET', `/teams/${TEAM}/webhooks/${fx.hook.id}/deliveries`, { token: TOKENS.webhooks })
  expect(log.body[0].status).toBe('delivered')
  expect(log.body[0].attempts.map((a: any) => [a.attempt, a.statusCode, a.nextAttemptAt !== null])).toEqual([[1, 500, true], [2, 200, false]])
})

test('three 5xx attempts then failed; a 4xx is final at once; redeliver sends the same bytes again', async () => {
  fx.rx.answers = [{ status: 503 }]
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  const d = dispatcher()
  for (const at of [fx.clock, fx.clock + 2000, fx.clock + 5000, fx.clock + 9000]) await d.runOnce(at)
  expect(fx.rx.requests).toHaveLength(3)
  fx.rx.answers = [{ status: 404 }]
  await publish(page('pages/b', 'pages/home', { en: { title: 'B', slug: 'b' } }))
  for (const at of [fx.clock + 10_000, fx.clock + 20_000]) await d.runOnce(at)
  expect(fx.rx.requests).toHaveLength(4)
  const log = (await fx.ctx.call('GET', `/teams/${TEAM}/webhooks/${fx.hook.id}/deliveries`, { token: TOKENS.webhooks })).body
  expect(log.map((e: any) => [e.status, e.attempts.length])).toEqual([['failed', 1], ['failed', 3]])
  fx.rx.answers = [{ status: 200 }]
  const again = await fx.ctx.call('POST', `/teams/${TEAM}/webhooks/${fx.hook.id}/deliveries/${log[1].eventId}/redeliver`, { token: TOKENS.webhooks })
  expect(again.status).toBe(202)
  await d.runOnce(Date.now() + 1000)
  expect(fx.rx.requests[4]!.body).toBe(fx.rx.requests[0]!.body)
  const after = (await fx.ctx.call('GET', `/teams/${TEAM}/webhooks/${fx.hook.id}/deliveries`, { token: TOKENS.webhooks })).body
  expect(after[1].status).toBe('delivered')
  expect(after[1].attempts.at(-1)).toMatchObject({ attempt: 1, trigger: 'manual', statusCode: 200 })
})

test('archive and delete send content.unpublished with the old paths', async () => {
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' }, fr: { title: 'A', slug: 'a-fr' } }))
  await publish(page('pages/b', 'pages/home', { en: { title: 'B', slug: 'b' } }))
  await fx.ctx.call('POST', `/content/archive/${TEAM}`, { body: { ids: ['pages/a'] } })
  await fx.ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/b'] } })
  await dispatcher().runOnce(fx.clock)
  const byDoc = payloads().filter((p) => p.eventType === 'content.unpublished').map((p) => [p.documentId, p.status, p.url, p.urls, p.previousUrls, p.locales])
  // pages/home has no fr slug, so pages/a has no fr URL (contract.md page URLs).
  expect(byDoc).toEqual([['pages/a', 'archived', '/a', {}, ['/a'], []], ['pages/b', 'deleted', '/b', {}, ['/b'], []]])
})

test('a page below a deleted page has no URL, like one below an archived page: scope stays "document"', async () => {
  await publish(page('pages/team', 'pages/home', { en: { title: 'Team', slug: 'team' } }))
  await publish(page('pages/jobs', 'pages/team', { en: { title: 'Jobs', slug: 'jobs' } }))
  await publish(page('pages/uni', 'pages/home', { en: { title: 'Uni', slug: 'uni' } }))
  await publish(page('pages/c1', 'pages/uni', { en: { title: 'C1', slug: 'c1' } }))
  await fx.ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/team'] } })
  await fx.ctx.call('POST', `/content/archive/${TEAM}`, { body: { ids: ['pages/uni'] } })
  await dispatcher().runOnce(fx.clock)
  fx.rx.requests.length = 0
  for (const [id, parent] of [['pages/jobs', 'pages/team'], ['pages/c1', 'pages/uni']] as const) {
    expect((await fx.ctx.call('POST', `/content/${TEAM}`, { body: page(`${id}/draft`, parent, { en: { title: 'Edited', slug: id.slice(6) } }) })).status).toBe(200)
  }
  expect((await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/jobs', 'pages/c1'] } })).body.map((i: { status: number }) => i.status)).toEqual([0, 0])
  await dispatcher().runOnce(fx.clock)
  const seen = payloads().map((p) => [p.documentId, p.url, p.urls, p.previousUrls, p.scope])
  expect(seen).toEqual([['pages/jobs', '', {}, [], 'document'], ['pages/c1', '', {}, [], 'document']])
})

test('moving a published page in place sends content.published with its and its children old paths', async () => {
  await publish(page('pages/company', 'pages/home', { en: { title: 'C', slug: 'company' } }))
  await publish(page('pages/about', 'pages/home', { en: { title: 'About', slug: 'about' } }))
  await publish(page('pages/team', 'pages/about', { en: { title: 'Team', slug: 'team' } }))
  await dispatcher().runOnce(fx.clock)
  fx.rx.requests.length = 0
  expect((await fx.ctx.call('POST', `/content/${TEAM}`, { body: page('pages/about', 'pages/company', { en: { title: 'About', slug: 'about' } }) })).status).toBe(200)
  await dispatcher().runOnce(fx.clock)
  expect(payloads()).toEqual([expect.objectContaining({
    eventType: 'content.published', documentId: 'pages/about', userId: 'u-editor', locales: ['en'],
    url: '/company/about', urls: { en: '/company/about' }, previousUrls: ['/about', '/about/team'], scope: 'document',
  })])
})

test('a burst of site changes yields one site.changed after the quiet period; editor-only changes count for nothing', async () => {
  const d = dispatcher()
  const put = (path: string, body: unknown) => fx.ctx.call('PUT', `/teams/${TEAM}${path}`, { body })
  expect((await put('/content-types/page', { collection: 'pages', urls: true, label: 'Pages', icon: 'doc', fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }, { name: 'sku' }] })).body.siteChanged).toBe(false)
  expect((await put('/locales', { locales: ['en', 'de'], defaultLocale: 'en' })).status).toBe(200)
  expect((await put('/localization', { fallbacks: { de: 'en' } })).status).toBe(200)
  expect((await put('/content-index', { fields: ['title'] })).body).toEqual({ indexGeneration: 1 })
  expect((await fx.ctx.call('PUT', `/teams/${TEAM}/locales`, { token: TOKENS.webhooks, body: { locales: ['en'], defaultLocale: 'en' } })).status).toBe(403)
  const now = Date.now()
  await d.runOnce(now + 29_000)
  expect(fx.rx.requests).toHaveLength(0)
  await d.runOnce(now + 31_000)
  await d.runOnce(now + 62_000)
  expect(payloads()).toEqual([{
    v: 2, eventType: 'site.changed', eventId: expect.any(String), occurredAt: expect.any(String), teamId: TEAM, workspaceId: 'main',
    userId: 'u-editor', documentId: null, collection: null, locales: [], status: 'index', url: '', urls: {}, previousUrls: [], scope: 'site',
  }])
})

sqliteOnly('calls the SQLite outbox operations directly (the PostgreSQL twins: test/db/pg/outbox)').test('an expired lease is claimable again; a lost lease writes nothing', async () => {
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  const [row] = claimDue(sqliteOf(fx.ctx.db).$client, { now: fx.clock, leaseMs: 5000, limit: 10 }) // a dispatcher that then dies
  expect(row).toBeDefined()
  expect(await dispatcher().runOnce(fx.clock + 1000)).toBe(0)
  expect(await dispatcher().runOnce(fx.clock + 5000)).toBe(1)
  const stale = recordAttempt(sqliteOf(fx.ctx.db).$client, row!, { statusCode: 200, error: null, durationMs: 1, responseBody: '' }, { status: 'delivered' }, fx.clock)
  expect(stale).toBe(false)
  expect(sqliteOf(fx.ctx.db).$client.query('SELECT COUNT(*) AS n FROM delivery_attempts').get()).toEqual({ n: 1 })
})

sqliteOnly('calls the SQLite outbox operations directly (the PostgreSQL twins: test/db/pg/outbox)').test('recording a batch: only rows whose lease still matches move on and get an attempt row', async () => {
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  await publish(page('pages/b', 'pages/home', { en: { title: 'B', slug: 'b' } }))
  const [first, second] = claimDue(sqliteOf(fx.ctx.db).$client, { now: fx.clock, leaseMs: 5000, limit: 10 })
  expect(second).toBeDefined()
  // The first row's lease expires and another dispatcher takes it: our token no longer matches.
  sqliteOf(fx.ctx.db).$client.query('UPDATE outbox SET lease_token = ? WHERE seq = ?').run('someone-else', first!.seq)
  const ok = { statusCode: 200, error: null, refused: false, durationMs: 3, responseBody: 'ok' }
  const kept = recordAttempts(sqliteOf(fx.ctx.db).$client, [
    { row: first!, result: ok, step: { status: 'delivered' }, startedAt: fx.clock },
    { row: second!, result: { ...ok, statusCode: 503 }, step: { status: 'pending', delayMs: 1500 }, startedAt: fx.clock },
  ])
  expect(kept).toEqual([false, true])
  expect(sqliteOf(fx.ctx.db).$client.query('SELECT seq, status, attempts, next_attempt_at AS next, lease_token AS lease FROM outbox ORDER BY seq').all()).toEqual([
    { seq: first!.seq, status: 'pending', attempts: 0, next: expect.any(Number), lease: 'someone-else' },
    { seq: second!.seq, status: 'pending', attempts: 1, next: fx.clock + 3 + 1500, lease: null },
  ])
  expect(sqliteOf(fx.ctx.db).$client.query('SELECT outbox_seq AS seq, attempt, status_code AS code, next_attempt_at AS next FROM delivery_attempts').all()).toEqual([
    { seq: second!.seq, attempt: 1, code: 503, next: fx.clock + 3 + 1500 },
  ])
})
