/** The dispatcher loop driven in-process with `runOnce(now)` and a hand-moved clock. */
import { row } from '../rows'
import { sqliteOnly } from '../dialect'
import { expect, test } from 'bun:test'
import { holdWriteLock, TEAM, TOKENS, waitFor } from '../helpers'
import { startReceiver } from '../test-receiver'
import { createLogger } from '../../core/log'
import { countingReceiver, loopFixture, page } from './loop-fixture'

const fx = loopFixture()
const { dispatcher, payloads, publish, enqueue, outboxState } = fx

test('rows claimed ahead of free slots: never more than perWebhook in flight, every row sent once and recorded', async () => {
  const rx2 = countingReceiver(2)
  try {
    await fx.ctx.call('PATCH', `/teams/${TEAM}/webhooks/${fx.hook.id}`, { token: TOKENS.webhooks, body: { target: rx2.url } })
    await enqueue(120)
    const d = dispatcher({ now: Date.now, perWebhook: 4, concurrency: 64, leaseMs: 60_000 })
    d.start()
    await waitFor(() => rx2.state.count >= 120, 10_000, 'all deliveries')
    await d.stop()
    expect(rx2.state.maxOpen).toBeLessThanOrEqual(4)
    expect(rx2.state.count).toBe(120)
    expect(await outboxState()).toEqual([{ status: 'delivered', n: 120, leased: 0 }])
    expect((await row(fx.ctx.db, 'SELECT COUNT(*) AS n, COUNT(DISTINCT outbox_seq) AS rows FROM delivery_attempts'))).toEqual({ n: 120, rows: 120 })
  } finally {
    rx2.stop()
  }
})

test('stop() gives rows claimed ahead back at once (no lease left to expire)', async () => {
  const rx2 = countingReceiver(20)
  try {
    await fx.ctx.call('PATCH', `/teams/${TEAM}/webhooks/${fx.hook.id}`, { token: TOKENS.webhooks, body: { target: rx2.url } })
    await enqueue(200)
    const d = dispatcher({ now: Date.now, perWebhook: 2, concurrency: 64, leaseMs: 60_000 })
    d.start()
    await waitFor(() => rx2.state.count >= 10, 10_000, 'a few deliveries')
    await d.stop()
    const rows = (await outboxState()) as { status: string; n: number; leased: number }[]
    expect(rows.every((r) => r.leased === 0)).toBe(true)
    expect(rows.reduce((a, r) => a + r.n, 0)).toBe(200)
    const delivered = rows.find((r) => r.status === 'delivered')!.n
    expect(delivered).toBe(rx2.state.count)
    expect(delivered).toBeLessThan(200)
  } finally {
    rx2.stop()
  }
})

sqliteOnly('another connection holds the SQLite write lock; PostgreSQL has none').test('an idle pass takes no write lock: an api writer holding it never stalls the dispatcher', async () => {
  const writer = holdWriteLock(fx.ctx.path) // as the api does for every write
  try {
    const lines: string[] = []
    const d = dispatcher({ log: createLogger('warn', 'test', { write: (l: string) => void lines.push(l) }) })
    const started = performance.now()
    expect(await d.runOnce(fx.clock)).toBe(0)
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
    await fx.ctx.call('PATCH', `/teams/${TEAM}/webhooks/${fx.hook.id}`, { token: TOKENS.webhooks, body: { target: hung.url } })
    for (let i = 0; i < 4; i++) {
      await fx.ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: `hung ${i}`, provider: 'custom', target: hung.url } })
    }
    await enqueue(20)
    const d = dispatcher({ now: Date.now, timeoutMs: 3000, concurrency: 64, perWebhook: 16, maxStalled })
    d.start()
    await waitFor(() => hung.requests.length >= 64, 5000, 'every shared slot taken by a hung receiver')
    await fx.ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'healthy', provider: 'custom', target: fast.url } })
    const t0 = Date.now()
    await enqueue(1)
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

sqliteOnly('another connection holds the SQLite write lock; PostgreSQL has none').test('with the write lock held by another process, a pass with work due writes nothing and returns at once; the next pass does it all', async () => {
  await publish(page('pages/locked', 'pages/home', { en: { title: 'L', slug: 'locked' } }))
  const draft = page('pages/sched/draft', 'pages/home', { en: { title: 'S', slug: 'sched' } })
  expect((await fx.ctx.call('POST', `/content/${TEAM}`, { body: draft })).status).toBe(200)
  expect((await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/sched', publishAt: new Date(fx.clock + 1000).toISOString() } })).status).toBe(201)
  expect((await fx.ctx.call('PUT', `/teams/${TEAM}/locales`, { body: { locales: ['en', 'de'], defaultLocale: 'en' } })).status).toBe(200)
  const at = fx.clock + 60_000 // the schedule and the site change's quiet window are both due
  const lines: string[] = []
  const d = dispatcher({ log: createLogger('info', 'test', { write: (l: string) => void lines.push(l) }) })
  const other = holdWriteLock(fx.ctx.path)
  const t = performance.now()
  try {
    expect(await d.runOnce(at)).toBe(0)
  } finally {
    other.release()
  }
  expect(performance.now() - t).toBeLessThan(1000) // waiting would take busy_timeout, 10 s
  expect(lines).toEqual([])
  expect(fx.rx.requests).toHaveLength(0)
  expect(await d.runOnce(at)).toBe(3)
  expect(payloads().map((p) => [p.eventType, p.documentId]).sort()).toEqual([
    ['content.published', 'pages/locked'], ['content.published', 'pages/sched'], ['site.changed', null],
  ])
})
