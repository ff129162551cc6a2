import { expect, test } from 'bun:test'
import type { Conn } from '../../db/client'
import { createTestContext, holdWriteLock, TEAM, TOKENS } from '../helpers'
import { sqliteOf, sqliteOnly } from '../dialect'
import { allPayloads, insertDeliveries, insertDelivery, row, rows, run } from '../rows'
import { DELETE_STEP, deleteDeliveriesStep } from '../../core/webhooks/service'
import { base, webhooksFixture } from './webhooks-fixture'

const fx = webhooksFixture()
const { create } = fx

test('validation: provider, events, target scheme and private targets', async () => {
  const bad = async (body: Record<string, unknown>) => (await create(body)).body.error
  expect(await bad({ label: 'x', provider: 'ftp', target: fx.rx.url })).toBe('invalid_body')
  expect(await bad({ label: 'x', provider: 'custom', target: fx.rx.url, events: ['content.moved'] })).toBe('invalid_body')
  expect(await bad({ label: 'x', provider: 'custom', target: 'not a url' })).toBe('invalid_target')
  expect(await bad({ label: 'x', provider: 'custom', target: 'ftp://example.com/x' })).toBe('invalid_target')
  expect(await bad({ label: 'x', provider: 'github', target: 'https://example.com/x', options: { token: 't' } })).toBe('invalid_target')
  expect(await bad({ label: 'x', provider: 'github', target: 'https://api.github.com/repos/o/r/dispatches' })).toBe('invalid_body')
  const strict = await createTestContext({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } })
  try {
    for (const target of [fx.rx.url, 'https://127.0.0.1/x', 'https://localhost/x', 'https://LOCALHOST./', 'https://169.254.169.254/x', 'https://[::ffff:10.0.0.1]/x']) {
      const res = await strict.call('POST', base, { token: TOKENS.webhooks, body: { label: 'x', provider: 'custom', target } })
      expect({ target, status: res.status, error: res.body.error }).toEqual({ target, status: 400, error: 'invalid_target' })
      // A loopback or private target says what would allow it (a receiver on the operator's own network).
      expect({ target, names: res.body.message.includes('WEBHOOK_ALLOW_PRIVATE_TARGETS=true') }).toEqual({ target, names: true })
    }
    const http = await strict.call('POST', base, { token: TOKENS.webhooks, body: { label: 'x', provider: 'custom', target: 'http://hooks.example.com/x' } })
    expect(http.body).toEqual({ error: 'invalid_target', message: 'The target must be an https:// URL (plain http:// only when the service runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true, for receivers on a private network).' })
    const ok = await strict.call('POST', base, { token: TOKENS.webhooks, body: { label: 'x', provider: 'custom', target: 'https://hooks.example.com/x' } })
    expect(ok.status).toBe(201)
  } finally {
    strict.close()
  }
})

test('github keeps its token out of every answer', async () => {
  const res = await create({ label: 'gh', provider: 'github', target: 'https://api.github.com/repos/acme/site/dispatches', options: { token: 'ghp_secret_token_9876', eventType: 'cms' } })
  expect(res.status).toBe(201)
  expect(res.body.options).toEqual({ eventType: 'cms', tokenLast4: '9876' })
  expect(res.text).not.toContain('ghp_secret_token')
  // A short token would be shown whole by its last four: it shows nothing.
  const short = await fx.ctx.call('PATCH', `${base}/${res.body.id}`, { token: TOKENS.webhooks, body: { options: { token: 'abc' } } })
  expect({ status: short.status, options: short.body.options }).toEqual({ status: 200, options: { eventType: 'cms', tokenLast4: '' } })
})

test('401 without a token, 403 without ManageWebhooks or for another team, 404 for an unknown id', async () => {
  const body = { label: 'x', provider: 'custom', target: fx.rx.url }
  expect((await fx.ctx.call('POST', base, { token: null, body })).status).toBe(401)
  expect((await fx.ctx.call('POST', base, { token: TOKENS.translator, body })).body).toEqual({ error: 'forbidden', message: expect.any(String) })
  expect((await fx.ctx.call('GET', base, { token: TOKENS.outsider })).status).toBe(403)
  expect((await fx.ctx.call('GET', `${base}/nope`, { token: TOKENS.webhooks })).body).toEqual({ error: 'not_found', message: 'Webhook not found.' })
  const created = await create(body)
  expect((await fx.ctx.call('GET', `/teams/other/webhooks/${created.body.id}`, { token: TOKENS.outsider })).status).toBe(404)
})

test('delete removes the webhook', async () => {
  const { body } = await create({ label: 'gone', provider: 'custom', target: fx.rx.url })
  expect((await fx.ctx.call('DELETE', `${base}/${body.id}`, { token: TOKENS.webhooks })).status).toBe(204)
  expect((await fx.ctx.call('GET', `${base}/${body.id}`, { token: TOKENS.webhooks })).status).toBe(404)
  expect((await fx.ctx.call('DELETE', `${base}/${body.id}`, { token: TOKENS.webhooks })).status).toBe(404)
})

test('delete takes the stored bytes of events only it was sent (a test send, its own publishes) and keeps those another webhook still needs', async () => {
  const own = await createTestContext()
  try {
    const hook = (events: string[]) => own.call('POST', base, { token: TOKENS.webhooks, body: { label: 'h', provider: 'custom', target: fx.rx.url, events } }).then((r) => r.body.id as string)
    const both = await hook(['content.published'])
    const onlyUnpublished = await hook(['content.unpublished'])
    const alone = await hook(['content.published', 'content.unpublished'])
    await own.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/home'] } }) // for `both` and `alone`
    await own.call('POST', `/content/archive/${TEAM}`, { body: { ids: ['pages/home'] } }) // for `onlyUnpublished` and `alone`
    expect((await own.call('POST', `${base}/${alone}/test`, { token: TOKENS.webhooks })).status).toBe(200) // for `alone` only
    const payloads = async () => (await allPayloads(own.db)).map((p) => ({ type: p.eventType, doc: p.documentId }))
      .sort((a, b) => (a.type + '\u0000' + a.doc < b.type + '\u0000' + b.doc ? -1 : 1))
    expect(await payloads()).toEqual([
      { type: 'content.published', doc: 'pages/home' }, { type: 'content.published', doc: 'webhook-test' }, { type: 'content.unpublished', doc: 'pages/home' },
    ])
    expect((await own.call('DELETE', `${base}/${alone}`, { token: TOKENS.webhooks })).status).toBe(204)
    expect(await payloads()).toEqual([{ type: 'content.published', doc: 'pages/home' }, { type: 'content.unpublished', doc: 'pages/home' }])
    await own.call('DELETE', `${base}/${both}`, { token: TOKENS.webhooks })
    await own.call('DELETE', `${base}/${onlyUnpublished}`, { token: TOKENS.webhooks })
    expect({ payloads: await payloads(), outbox: (await row(own.db, 'SELECT COUNT(*) AS n FROM outbox')) }).toEqual({ payloads: [], outbox: { n: 0 } })
  } finally {
    await own.close()
  }
})

test('a long delivery log is deleted in short steps; pending rows (in flight, due, written meanwhile) go only with the webhook', async () => {
  const own = await createTestContext()
  try {
    const hook = (label: string) => own.call('POST', base, { token: TOKENS.webhooks, body: { label, provider: 'custom', target: fx.rx.url } }).then((r) => r.body.id as string)
    const gone = await hook('gone')
    const kept = await hook('kept')
    const add = async (db: Conn, eventId: string, webhookId: string, status: 'pending' | 'delivered' = 'delivered', lease?: [string, number]) => {
      const seq = await insertDelivery(db, { eventId, webhookId, status, lease })
      await run(db, `INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body)
        VALUES (?, ?, ?, 1, 'scheduled', 0, 200, NULL, 3, 'ok')`, seq, webhookId, eventId)
    }
    await own.db.transaction(async (tx) => {
      await add(tx, 'ev-in-flight', gone, 'pending', ['lease-1', Date.now() + 60_000]) // a dispatcher is sending it
      await add(tx, 'ev-due', gone, 'pending') // not sent yet: a deletion cut short must not drop it
      for (let i = 0; i < 1234; i++) {
        await add(tx, `ev-${i}`, gone)
        if (i % 100 === 0) await add(tx, `ev-${i}`, kept) // an event both webhooks were sent
      }
    })
    const count = async (sql: string) => Number((await row<{ n: number }>(own.db, sql))!.n)
    const consistent = async () => {
      expect(await count('SELECT COUNT(*) AS n FROM delivery_attempts a WHERE NOT EXISTS (SELECT 1 FROM outbox o WHERE o.seq = a.outbox_seq)')).toBe(0)
      expect(await count('SELECT COUNT(*) AS n FROM outbox_events e WHERE NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = e.event_id)')).toBe(0)
    }
    const ofGone = async () => await count(`SELECT COUNT(*) AS n FROM outbox WHERE webhook_id = '${gone}'`)
    expect(await ofGone()).toBe(1236)
    // One step takes at most DELETE_STEP finished deliveries, never a pending one, and leaves nothing dangling.
    expect(await deleteDeliveriesStep(own.db, gone, DELETE_STEP)).toBe(DELETE_STEP)
    expect(await ofGone()).toBe(1236 - DELETE_STEP)
    await consistent()
    expect(await deleteDeliveriesStep(own.db, gone, DELETE_STEP)).toBe(DELETE_STEP)
    expect(await deleteDeliveriesStep(own.db, gone, DELETE_STEP)).toBe(1234 - 2 * DELETE_STEP)
    expect(await deleteDeliveriesStep(own.db, gone, DELETE_STEP)).toBe(0)
    // Steps cut short here (a crash, a 503) leave the webhook with every pending delivery and its bytes.
    expect(await rows(own.db, `SELECT event_id FROM outbox WHERE webhook_id = '${gone}' ORDER BY seq`)).toEqual([{ event_id: 'ev-in-flight' }, { event_id: 'ev-due' }])
    expect(await count(`SELECT COUNT(*) AS n FROM outbox_events WHERE event_id IN ('ev-in-flight', 'ev-due')`)).toBe(2)
    await consistent()
    await add(own.db, 'ev-0', gone) // written meanwhile (a redelivery of an event the kept webhook still holds)
    expect((await own.call('DELETE', `${base}/${gone}`, { token: TOKENS.webhooks })).status).toBe(204)
    expect(await ofGone()).toBe(0)
    await consistent()
    // The kept webhook's deliveries, their attempts and their events' bytes are all there.
    expect(await count(`SELECT COUNT(*) AS n FROM outbox WHERE webhook_id = '${kept}'`)).toBe(13)
    expect(await count(`SELECT COUNT(*) AS n FROM delivery_attempts WHERE webhook_id = '${kept}'`)).toBe(13)
    expect(await count('SELECT COUNT(*) AS n FROM outbox_events')).toBe(13)
    expect((await own.call('GET', `${base}/${kept}/deliveries`, { token: TOKENS.webhooks })).body).toHaveLength(13)
  } finally {
    await own.close()
  }
})

sqliteOnly('another connection holds the SQLite write lock; PostgreSQL has none').test('deleting a webhook with a long log waits for a free write lock between its steps, on timers', async () => {
  const own = await createTestContext()
  try {
    const id = (await own.call('POST', base, { token: TOKENS.webhooks, body: { label: 'h', provider: 'custom', target: fx.rx.url } })).body.id as string
    const c = sqliteOf(own.db).$client
    await insertDeliveries(own.db, Array.from({ length: 3 * DELETE_STEP }, (_, i) => ({ eventId: `ev-${i}`, webhookId: id })))
    // Another process takes the write lock as soon as the first step has given it back.
    const outbox = () => (c.query(`SELECT COUNT(*) AS n FROM outbox WHERE webhook_id = '${id}'`).get() as { n: number }).n
    const deleting = own.call('DELETE', `${base}/${id}`, { token: TOKENS.webhooks })
    while (outbox() === 3 * DELETE_STEP) await Bun.sleep(0) // a look between every two of its turns
    const other = holdWriteLock(own.path)
    const steps = outbox()
    // Stopped part way: the log goes in steps, not in one transaction.
    expect(steps).toBeGreaterThan(0)
    expect(steps).toBeLessThan(3 * DELETE_STEP)
    const ticks = { n: 0 }
    const ticker = setInterval(() => ticks.n++, 5)
    await Bun.sleep(150)
    // Held by the other process: the deletion waits (on timers: this process keeps running) and takes nothing.
    expect(outbox()).toBe(steps)
    expect(ticks.n).toBeGreaterThan(10)
    other.release('COMMIT')
    clearInterval(ticker)
    expect((await deleting).status).toBe(204)
    expect(outbox()).toBe(0)
  } finally {
    await own.close()
  }
})

test('a response body cut at 4 KiB never ends in half a character', async () => {
  fx.rx.answers = [{ status: 200, body: 'x'.repeat(4095) + 'é'.repeat(100) }]
  const { body: hook } = await create({ label: 'cut', provider: 'custom', target: fx.rx.url })
  const res = await fx.ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
  expect(res.body.responseBody).toBe('x'.repeat(4095))
  expect(Buffer.byteLength(res.body.responseBody)).toBeLessThanOrEqual(4096)
})
