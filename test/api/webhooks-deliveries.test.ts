import { allPayloads, failInserts, payloadOf, row, rows as select, run } from '../rows'
import { expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS } from '../helpers'
import { verifySignature } from '../../receiver'
import { base, ISO, webhooksFixture } from './webhooks-fixture'

const fx = webhooksFixture()
const { create, loggedPayloads } = fx

test('test endpoint sends a signed sample synchronously and logs it as a test delivery', async () => {
  fx.rx.answers = [{ status: 200, body: 'x'.repeat(5000) }]
  const { body: hook } = await create({ label: 't', provider: 'custom', target: fx.rx.url, events: ['content.unpublished', 'site.changed'] })
  const res = await fx.ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
  expect(res.status).toBe(200)
  expect(res.body).toEqual({ delivered: true, status: 200, durationMs: expect.any(Number), responseBody: 'x'.repeat(4096) })
  expect(fx.rx.requests).toHaveLength(1)
  const sent = fx.rx.requests[0]!
  const payload = JSON.parse(sent.body)
  expect(payload).toMatchObject({ v: 2, eventType: 'content.unpublished', documentId: 'webhook-test', teamId: TEAM, userId: 'u-webhooks' })
  expect(sent.headers['x-service-delivery']).toBe(payload.eventId)
  expect(verifySignature(sent.body, sent.headers['x-service-signature'], hook.secret)).toBe(true)

  const site = await fx.ctx.call('POST', `${base}/${hook.id}/test?eventType=site.changed`, { token: TOKENS.webhooks })
  expect(site.body.delivered).toBe(true)
  expect(JSON.parse(fx.rx.requests[1]!.body)).toMatchObject({ eventType: 'site.changed', scope: 'site', urls: {} })
  expect((await fx.ctx.call('POST', `${base}/${hook.id}/test?eventType=nope`, { token: TOKENS.webhooks })).body.error).toBe('invalid_event_type')
  // An empty one is left out: the first subscribed event.
  const blank = await fx.ctx.call('POST', `${base}/${hook.id}/test?eventType=`, { token: TOKENS.webhooks })
  expect(blank.body.delivered).toBe(true)
  expect(JSON.parse(fx.rx.requests[2]!.body).eventType).toBe('content.unpublished')

  fx.rx.answers = [{ status: 503, body: 'down' }]
  const failed = await fx.ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
  expect(failed.body).toEqual({ delivered: false, status: 503, durationMs: expect.any(Number), responseBody: 'down' })

  const log = await fx.ctx.call('GET', `${base}/${hook.id}/deliveries`, { token: TOKENS.webhooks })
  expect(log.status).toBe(200)
  expect(log.body.map((d: any) => [d.eventType, d.status, d.attempts.map((a: any) => [a.attempt, a.trigger, a.statusCode])])).toEqual([
    ['content.unpublished', 'failed', [[1, 'test', 503]]],
    ['content.unpublished', 'delivered', [[1, 'test', 200]]],
    ['site.changed', 'delivered', [[1, 'test', 200]]],
    ['content.unpublished', 'delivered', [[1, 'test', 200]]],
  ])
  expect(log.body[0]).toEqual({
    eventId: expect.any(String), eventType: 'content.unpublished', status: 'failed', createdAt: ISO,
    attempts: [{ attempt: 1, trigger: 'test', at: ISO, statusCode: 503, error: null, durationMs: expect.any(Number), nextAttemptAt: null, responseBody: 'down' }],
  })
})

test('a batch publishes a parent before its child, whatever the order asked: the child event names its path', async () => {
  const { body: hook } = await create({ label: 'order', provider: 'custom', target: fx.rx.url })
  const put = (id: string, parent: string, slug: string) =>
    fx.ctx.call('POST', `/content/${TEAM}`, { body: { id, contentType: 'page', fields: { parent }, locales: { en: { title: slug, slug } } } })
  expect((await put('pages/shop', 'pages/home', 'shop')).status).toBe(200)
  expect((await put('pages/shop-item', 'pages/shop', 'item')).status).toBe(200)
  const res = await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/shop-item', 'pages/shop'] } })
  // Answers in the order asked.
  expect(res.body.map((i: any) => [i.id, i.status])).toEqual([['pages/shop-item', 0], ['pages/shop', 0]])
  const log = (await fx.ctx.call('GET', `${base}/${hook.id}/deliveries`, { token: TOKENS.webhooks })).body
  const payloads = await Promise.all(log.map((d: any) => payloadOf(fx.ctx.db, d.eventId)))
  expect(payloads.map((p: any) => [p.documentId, p.urls]).reverse()).toEqual([
    ['pages/shop', { en: '/shop' }],
    ['pages/shop-item', { en: '/shop/item' }],
  ])
})

test('a publish writes an outbox row; redeliver puts the same event back to pending as manual', async () => {
  const { body: hook } = await create({ label: 'r', provider: 'custom', target: fx.rx.url })
  const doc = { id: 'pages/about', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'About', slug: 'about' } } }
  expect((await fx.ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
  expect((await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/about'] } })).body[0].status).toBe(0)
  const log = await fx.ctx.call('GET', `${base}/${hook.id}/deliveries`, { token: TOKENS.webhooks })
  expect(log.body).toEqual([{ eventId: expect.any(String), eventType: 'content.published', status: 'pending', createdAt: ISO, attempts: [] }])
  const eventId = log.body[0].eventId
  const got = (await row(fx.ctx.db, 'SELECT payload FROM outbox_events WHERE event_id = ?', eventId)) as { payload: string }
  expect(JSON.parse(got.payload)).toEqual({
    v: 2, eventType: 'content.published', eventId, occurredAt: ISO, teamId: TEAM, workspaceId: 'main', userId: 'u-editor',
    documentId: 'pages/about', collection: 'pages', locales: ['en'], status: 'published', url: '/about', urls: { en: '/about' },
    previousUrls: [], scope: 'document',
  })
  await run(fx.ctx.db, "UPDATE outbox SET status = 'failed', attempts = 3 WHERE event_id = ? AND webhook_id = ?", eventId, hook.id)
  const again = await fx.ctx.call('POST', `${base}/${hook.id}/deliveries/${eventId}/redeliver`, { token: TOKENS.webhooks })
  expect(again).toMatchObject({ status: 202, body: { eventId, eventType: 'content.published', status: 'pending' } })
  expect(await row(fx.ctx.db,
    'SELECT status, attempts, trigger, payload FROM outbox JOIN outbox_events USING (event_id) WHERE event_id = ? AND webhook_id = ?',
    eventId, hook.id)).toEqual({
    status: 'pending', attempts: 0, trigger: 'manual', payload: got.payload,
  })
  expect((await fx.ctx.call('POST', `${base}/${hook.id}/deliveries/nope/redeliver`, { token: TOKENS.webhooks })).status).toBe(404)
})

test('publish and its outbox rows are one transaction: one row per subscribed webhook, or, when the outbox write fails, no publish either', async () => {
  const own = await createTestContext()
  try {
    const hook = async (label: string, events?: string[]) =>
      (await own.call('POST', base, { token: TOKENS.webhooks, body: { label, provider: 'custom', target: fx.rx.url, ...(events ? { events } : {}) } })).body.id as string
    const [a, b] = [await hook('a'), await hook('b', ['content.published'])]
    await hook('site only', ['site.changed']) // not subscribed to content.published: no row
    const doc = (id: string, slug: string) => ({ id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: slug, slug } } })
    const rows = async (id: string) => (await select<{ hook: string; payload: string }>(own.db, 'SELECT webhook_id AS hook, payload FROM outbox JOIN outbox_events USING (event_id) ORDER BY webhook_id'))
      .filter((r) => JSON.parse(r.payload).documentId === id).map((r) => r.hook)
    expect((await own.call('POST', `/content/${TEAM}`, { body: doc('pages/tx-ok', 'tx-ok') })).status).toBe(200)
    expect((await own.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/tx-ok'] } })).body[0].status).toBe(0)
    expect(await rows('pages/tx-ok')).toEqual([a, b].sort())
    // The outbox write fails inside the publish (a trigger stands in for a full disk or a constraint).
    expect((await own.call('POST', `/content/${TEAM}`, { body: doc('pages/tx-fail', 'tx-fail') })).status).toBe(200)
    const restore = await failInserts(own.db, 'outbox', 'outbox write failed')
    const failed = await own.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/tx-fail'] } })
    await restore()
    expect({ status: failed.status, error: failed.body.error }).toEqual({ status: 500, error: 'internal' })
    expect(await rows('pages/tx-fail')).toEqual([])
    expect((await allPayloads(own.db)).filter((p) => p.documentId === 'pages/tx-fail')).toEqual([])
    // Nothing of the publish stayed: not live, unstamped, no Published Version.
    const stayed = (await own.call('GET', `/content/${TEAM}?id=pages/tx-fail`)).body
    expect({ published: stayed['@metadata'].published, stamp: stayed.__publishedAt ?? null }).toEqual({ published: false, stamp: null })
    expect((await own.call('GET', `/content/versions/${TEAM}?id=pages/tx-fail`)).body.rows).toEqual([])
  } finally {
    await own.close()
  }
})

test('delivery metrics are on /metrics', async () => {
  const res = await fx.ctx.call('GET', '/metrics', { token: TOKENS.translator })
  expect(res.text).toContain('service_webhook_outbox{status="pending"}')
  expect(res.text).toContain('service_webhook_delivery_attempts{result="2xx"}')
})

test('URLs come from the type before and after: a page that becomes a type without URLs lists its old paths; a draft-only parent gives no URL, not site scope', async () => {
  const { body: hook } = await create({ label: 'types', provider: 'custom', target: fx.rx.url })
  const payloads = () => loggedPayloads(hook.id)
  const write = (body: Record<string, unknown>) => fx.ctx.call('POST', `/content/${TEAM}`, { body })
  const page = (id: string, parent: string, slug: string) => ({ id, contentType: 'page', fields: { parent }, locales: { en: { title: slug, slug } } })
  const publish = (ids: string[]) => fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids } })
  expect((await write(page('pages/promo', 'pages/home', 'promo'))).status).toBe(200)
  expect((await write(page('pages/promo-kid', 'pages/promo', 'kid'))).status).toBe(200)
  expect((await publish(['pages/promo', 'pages/promo-kid'])).body.map((i: any) => i.status)).toEqual([0, 0])

  // By a draft and a publish...
  expect((await write({ id: 'pages/promo/draft', contentType: 'product', fields: { sku: 'P' }, locales: { en: { name: 'Promo' } } })).status).toBe(200)
  expect((await publish(['pages/promo'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({
    documentId: 'pages/promo', collection: 'products', url: '', urls: {}, previousUrls: ['/promo', '/promo/kid'], scope: 'document',
  })
  // ...and in place on a published canonical.
  expect((await write(page('pages/moved', 'pages/home', 'moved'))).status).toBe(200)
  expect((await publish(['pages/moved'])).body[0].status).toBe(0)
  expect((await write({ id: 'pages/moved', contentType: 'product', fields: { sku: 'M' }, locales: { en: { name: 'Moved' } } })).status).toBe(200)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/moved', url: '', urls: {}, previousUrls: ['/moved'], scope: 'document' })
  // ...and in place with nothing but the type changed (same fields, same languages), both ways.
  const plain = { collection: 'pages', urls: false, label: 'Plain', fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }] }
  expect((await fx.ctx.call('PUT', `/teams/${TEAM}/content-types/plain`, { body: plain })).status).toBe(200)
  expect((await write(page('pages/plain', 'pages/home', 'plain'))).status).toBe(200)
  expect((await publish(['pages/plain'])).body[0].status).toBe(0)
  expect((await write({ ...page('pages/plain', 'pages/home', 'plain'), contentType: 'plain' })).status).toBe(200)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/plain', locales: ['en'], url: '', urls: {}, previousUrls: ['/plain'], scope: 'document' })
  expect((await write(page('pages/plain', 'pages/home', 'plain'))).status).toBe(200)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/plain', locales: ['en'], url: '/plain', urls: { en: '/plain' }, previousUrls: [], scope: 'document' })

  // A parent that exists only as a draft serves nothing: its child has no URL, and that is known.
  expect((await write(page('pages/kiosk/draft', 'pages/home', 'shop'))).status).toBe(200)
  expect((await write(page('pages/kiosk-kid', 'pages/kiosk', 'kid'))).status).toBe(200)
  expect((await publish(['pages/kiosk-kid'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/kiosk-kid', url: '', urls: {}, previousUrls: [], scope: 'document' })
  // A parent that names no document serves nothing either (it was site scope: a whole-site purge
  // on every event of the page and the pages below it), for a publish, a child and a take-down.
  expect((await write(page('pages/orphan', 'pages/nowhere', 'orphan'))).status).toBe(200)
  expect((await publish(['pages/orphan'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/orphan', url: '', urls: {}, previousUrls: [], scope: 'document' })
  expect((await write(page('pages/orphan-kid', 'pages/orphan', 'kid'))).status).toBe(200)
  expect((await publish(['pages/orphan-kid'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/orphan-kid', urls: {}, scope: 'document' })
  expect((await fx.ctx.call('POST', `/content/unpublish/${TEAM}`, { body: { ids: ['pages/orphan'] } })).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/orphan', eventType: 'content.unpublished', url: '', previousUrls: [], scope: 'document' })
})

test('a content type\'s collection change moves its documents: pages are told by type, so later events still name every path', async () => {
  const { body: hook } = await create({ label: 'collections', provider: 'custom', target: fx.rx.url })
  const payloads = () => loggedPayloads(hook.id)
  const type = (collection: string) => ({ collection, urls: true, label: 'Landing', fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }] })
  const write = (id: string, contentType: string, parent: string, slug: string) =>
    fx.ctx.call('POST', `/content/${TEAM}`, { body: { id, contentType, fields: { parent }, locales: { en: { title: slug, slug } } } })
  const publish = (ids: string[]) => fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids } })
  expect((await fx.ctx.call('PUT', `/teams/${TEAM}/content-types/landing`, { body: type('lpa') })).status).toBe(200)
  for (const [id, contentType, parent, slug] of [['lp/p', 'landing', 'pages/home', 'lp'], ['lp/k', 'landing', 'lp/p', 'k'], ['pages/q', 'page', 'lp/p', 'q']]) {
    expect((await write(id!, contentType!, parent!, slug!)).status).toBe(200)
  }
  expect((await publish(['lp/p', 'lp/k', 'pages/q'])).body.map((i: any) => i.status)).toEqual([0, 0, 0])
  expect((await fx.ctx.call('PUT', `/teams/${TEAM}/content-types/landing`, { body: type('lpb') })).status).toBe(200)
  // Its documents, draft and canonical, list under the new collection; the events name it.
  expect((await write('lp/k/draft', 'landing', 'lp/p', 'k2')).status).toBe(200)
  const listed = await fx.ctx.call('GET', `/content/list/${TEAM}?collection=lpb`)
  expect(listed.body.rows.map((r: any) => r.id)).toEqual(['lp/k', 'lp/p'])
  expect((await fx.ctx.call('GET', `/content/list/${TEAM}?collection=lpa`)).body.rows).toEqual([])
  // A child of a page not republished since: its old and new paths (were none at all).
  expect((await publish(['lp/k'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'lp/k', collection: 'lpb', urls: { en: '/lp/k2' }, previousUrls: ['/lp/k'], scope: 'document' })
  // A rename of the parent moves every page below it, of either type (/lp/k2 was missing).
  expect((await write('lp/p/draft', 'landing', 'pages/home', 'lp2')).status).toBe(200)
  expect((await publish(['lp/p'])).body[0].status).toBe(0)
  const moved = (await payloads())[0]
  expect({ urls: moved.urls, previousUrls: [...moved.previousUrls].sort(), scope: moved.scope }).toEqual({ urls: { en: '/lp2' }, previousUrls: ['/lp', '/lp/k2', '/lp/q'], scope: 'document' })
})

test('a value outside a fixed set is refused naming the choices, not "Expected union value"', async () => {
  const events = await create({ label: 'x', provider: 'custom', target: fx.rx.url, events: ['content.changed'] })
  expect({ status: events.status, body: events.body }).toEqual({
    status: 400, body: { error: 'invalid_body', message: 'Invalid request: /events/0 must be one of "content.published", "content.unpublished", "site.changed"' },
  })
  const provider = await create({ label: 'x', provider: 'ftp', target: fx.rx.url })
  expect(provider.body.message).toBe('Invalid request: /provider must be one of "custom", "netlify", "vercel", "github"')
  const name = await fx.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/home', name: 5 } })
  expect({ status: name.status, body: name.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: 'Invalid request: /name must be string or null' } })
  // A string that breaks the string's own limit is told that limit, not the list of types.
  const long = await fx.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/home', name: 'x'.repeat(201) } })
  expect({ status: long.status, body: long.body }).toEqual({ status: 400, body: { error: 'invalid_name', message: 'Invalid request: /name Expected string length less or equal to 200' } })
})

test('the delivery log pages with limit and before, and filters by status; bad paging is a 400, an unknown before a 404', async () => {
  const hook = (await create({ label: 'paged', provider: 'custom', target: fx.rx.url, events: ['content.published'] })).body
  const log = (query = '') => fx.ctx.call('GET', `${base}/${hook.id}/deliveries${query}`, { token: TOKENS.webhooks })
  // Five test sends: delivered, failed (a 500), delivered, failed, delivered (newest last).
  fx.rx.answers = [{ status: 200 }, { status: 500 }, { status: 200 }, { status: 500 }, { status: 200 }]
  for (let i = 0; i < 5; i++) expect((await fx.ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })).status).toBe(200)
  const all = (await log()).body as { eventId: string; status: string }[]
  expect(all.map((e) => e.status)).toEqual(['delivered', 'failed', 'delivered', 'failed', 'delivered'])
  const first = await log('?limit=2')
  expect(first.body.map((e: any) => e.eventId)).toEqual(all.slice(0, 2).map((e) => e.eventId))
  const second = await log(`?limit=2&before=${first.body[1].eventId}`)
  expect(second.body.map((e: any) => e.eventId)).toEqual(all.slice(2, 4).map((e) => e.eventId))
  const last = await log(`?limit=2&before=${second.body[1].eventId}`)
  expect(last.body.map((e: any) => e.eventId)).toEqual([all[4]!.eventId])
  expect((await log(`?before=${all[4]!.eventId}`)).body).toEqual([])
  const failed = await log('?status=failed')
  expect(failed.body.map((e: any) => e.eventId)).toEqual([all[1]!.eventId, all[3]!.eventId])
  expect(failed.body.every((e: any) => e.attempts[0].statusCode === 500)).toBe(true)
  expect((await log(`?status=failed&before=${all[1]!.eventId}`)).body.map((e: any) => e.eventId)).toEqual([all[3]!.eventId])

  for (const bad of ['?limit=0', '?limit=-1', '?limit=abc', '?limit=2.5', '?limit=%201', '?limit=1e1']) {
    const res = await log(bad)
    expect({ bad, status: res.status, body: res.body }).toEqual({ bad, status: 400, body: { error: 'invalid_body', message: '`limit` must be a positive integer.' } })
  }
  const status = await log('?status=lost')
  expect({ status: status.status, body: status.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: 'Invalid request: /status must be one of "pending", "delivered", "failed"' } })
  expect((await log('?limit=1000')).body).toHaveLength(5) // capped at 100, as versions' pageSize
  expect((await log('?limit=&before=')).body).toEqual(all) // empty is unset
  expect((await log('?status=')).body).toEqual(all) // a filter form's blank choice too
  // An eventId of another webhook, an unknown one, a hostile one: not a delivery of this webhook.
  const other = (await create({ label: 'other', provider: 'custom', target: fx.rx.url })).body
  expect((await fx.ctx.call('POST', `${base}/${other.id}/test`, { token: TOKENS.webhooks })).status).toBe(200)
  const otherEvent = (await fx.ctx.call('GET', `${base}/${other.id}/deliveries`, { token: TOKENS.webhooks })).body[0].eventId
  for (const before of [otherEvent, 'no-such-event', encodeURIComponent('../../x'), encodeURIComponent('é')]) {
    const res = await log(`?before=${before}`)
    expect({ before, status: res.status, body: res.body }).toEqual({ before, status: 404, body: { error: 'not_found', message: expect.stringContaining('`before`') } })
  }
})
