/**
 * Delivery log retention (DELIVERY_LOG_RETENTION_DAYS, dispatcher/prune.ts), driven through the
 * dispatcher loop with a hand-moved clock, and seen through the api's delivery log.
 */
import { sqliteOf, sqliteOnly } from '../dialect'
import { count as countRows, insertDeliveries, insertDelivery, rows } from '../rows'
import { storeFor } from './store-for'
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { createTestContext, holdWriteLock, TEAM, TOKENS, type TestContext } from '../helpers'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { createDispatcher } from '../../dispatcher/loop'
import { pruneDeliveries } from '../../db/outbox/prune'
import { createLogger } from '../../core/log'

let ctx: TestContext
let rx1: TestReceiver
let rx2: TestReceiver
let hooks: { id: string }[]
const RETENTION = 60_000

function dispatcher(over: Partial<Parameters<typeof createDispatcher>[0]> = {}) {
  return createDispatcher({
    db: ctx.db, log: createLogger('silent', 'test'), metrics: ctx.metrics, pollMs: 50, allowPrivateTargets: true, timeoutMs: 2000,
    random: () => 0.5, deliveryRetentionMs: RETENTION, ...storeFor(ctx.db), ...over,
  })
}
async function publish(id: string, slug: string) {
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: { id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: slug, slug } } } })).status).toBe(200)
  expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })).body[0].status).toBe(0)
}
const log = async (hook: { id: string }) => (await ctx.call('GET', `/teams/${TEAM}/webhooks/${hook.id}/deliveries`, { token: TOKENS.webhooks })).body as any[]
const count = (table: string) => countRows(ctx.db, table)
const storedEvents = async () => (await rows<{ payload: string }>(ctx.db, 'SELECT payload FROM outbox_events')).map((r) => JSON.parse(r.payload).documentId as string).sort()

beforeEach(async () => {
  ctx = await createTestContext()
  rx1 = startReceiver()
  rx2 = startReceiver()
  hooks = []
  for (const rx of [rx1, rx2]) {
    const res = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'site', provider: 'custom', target: rx.url, events: ['content.published'] } })
    expect(res.status).toBe(201)
    hooks.push(res.body)
  }
})
afterEach(async () => {
  rx1.stop()
  rx2.stop()
  await ctx.close()
})

test('finished deliveries past the retention leave the log with their attempts and bytes; pending work and recent rows stay', async () => {
  const now = Date.now() + 1000 // rows written from here on are due
  const d = dispatcher({ now: () => now })
  await publish('pages/old', 'old')
  await d.runOnce(now) // delivered to both
  rx2.answers = [{ status: 200 }, { status: 500 }, { status: 200 }] // by request: old, retry, retry again
  await publish('pages/retry', 'retry')
  await d.runOnce(now) // delivered to 1, pending (500) at 2
  expect((await log(hooks[1]!)).map((e) => [e.status, e.attempts.length])).toEqual([['pending', 1], ['delivered', 1]])
  const old = (await log(hooks[0]!)).find((e) => e.status === 'delivered')!

  // A minute and more later: every finished row is past the retention; the pending one is work.
  // The pass prunes first, then sends the retry, which is answered now and so is recent.
  const later = now + RETENTION + 1000
  const d2 = dispatcher({ now: () => later })
  expect(await d2.runOnce(later)).toBe(1)
  expect(await log(hooks[0]!)).toEqual([])
  const left = await log(hooks[1]!)
  expect(left.map((e) => [e.status, e.attempts.map((a: any) => a.statusCode)])).toEqual([['delivered', [500, 200]]])
  expect(await count('outbox')).toBe(1)
  expect(await count('delivery_attempts')).toBe(2)
  expect(await storedEvents()).toEqual(['pages/retry']) // still the bytes of a kept delivery
  // A pruned delivery is gone for redelivery too.
  const again = await ctx.call('POST', `/teams/${TEAM}/webhooks/${hooks[0]!.id}/deliveries/${old.eventId}/redeliver`, { token: TOKENS.webhooks })
  expect(again.status).toBe(404)
  expect(again.body).toEqual({ error: 'not_found', message: 'No delivery of this webhook has that event id (never made, or removed by retention).' })
})

test('retention 0 keeps the log forever', async () => {
  await publish('pages/kept', 'kept')
  const now = Date.now() + 1000
  await dispatcher({ deliveryRetentionMs: 0, now: () => now }).runOnce(now)
  const years = now + 10 * 365 * 86_400_000
  await dispatcher({ deliveryRetentionMs: 0, now: () => years }).runOnce(years)
  expect((await log(hooks[0]!)).map((e) => e.status)).toEqual(['delivered'])
  expect(await count('delivery_attempts')).toBe(2)
})

test('caught up, the next look is 10 minutes later; a backlog is pruned 200 per pass, oldest first', async () => {
  let clock = Date.now() + 1000
  const d = dispatcher({ now: () => clock })
  await publish('pages/a', 'a')
  await d.runOnce(clock) // sends a; the first pass looked and found nothing to prune
  clock += RETENTION + 1000 // a is past the retention, but the last look was a minute ago
  await d.runOnce(clock)
  expect(await count('outbox')).toBe(2)
  clock += 10 * 60_000
  await d.runOnce(clock)
  expect(await count('outbox')).toBe(0)

  // 300 finished rows, older than the cutoff (written straight into the file).
  const t = clock - 2 * RETENTION
  await insertDeliveries(ctx.db, Array.from({ length: 300 }, (_, i) => ({ eventId: `e${i}`, webhookId: hooks[0]!.id, at: t + i })))
  clock += 10 * 60_000
  await d.runOnce(clock)
  expect(await count('outbox')).toBe(100)
  expect((await rows<{ e: string }>(ctx.db, 'SELECT min(event_id) AS e FROM outbox'))[0]!.e).toBe('e200') // e0..e199 went first (by seq)
  await d.runOnce(clock + 1) // a full batch: the next pass goes on at once
  expect(await count('outbox')).toBe(0)
  expect(await count('outbox_events')).toBe(0)
})

sqliteOnly('another connection holds the SQLite write lock').test('with the write lock held by another process the prune waits for the next pass, without blocking', async () => {
  await publish('pages/a', 'a')
  const now = Date.now() + 1000
  await dispatcher({ now: () => now }).runOnce(now)
  const later = now + RETENTION + 1000
  const d = dispatcher({ now: () => later })
  const other = holdWriteLock(ctx.path)
  const t = performance.now()
  try {
    await d.runOnce(later)
  } finally {
    other.release()
  }
  expect(performance.now() - t).toBeLessThan(1000) // waiting would take busy_timeout, 10 s
  expect(await count('outbox')).toBe(2)
  await d.runOnce(later + 1)
  expect(await count('outbox')).toBe(0)
})

sqliteOnly('calls the SQLite prune operation directly (its PostgreSQL twin: test/db/pg/outbox/twins.test.ts)').test('pruneDeliveries: emitted site changes past the cutoff go, held ones stay; old rows behind newer ones go too (a clock that stepped back)', async () => {
  const c = sqliteOf(ctx.db).$client
  const cutoff = Date.now()
  c.query(`INSERT INTO site_changes (team_id, status, occurred_at, emitted_at) VALUES (?, 'locales', ?, ?), (?, 'locales', ?, NULL)`)
    .run(TEAM, cutoff - 5000, cutoff - 4000, TEAM, cutoff - 5000)
  // Row 1 written after the cutoff; row 2, behind it, carries an older time (the clock stepped back).
  for (const [i, at] of [[1, cutoff + 10], [2, cutoff - 10_000]] as const) {
    await insertDelivery(ctx.db, { eventId: `s${i}`, webhookId: hooks[0]!.id, status: 'failed', attempts: 3, at })
  }
  expect(pruneDeliveries(sqliteOf(ctx.db).$client, cutoff, 100)).toEqual({ deliveries: 1, events: 1, siteChanges: 1, next: null })
  expect((c.query('SELECT emitted_at FROM site_changes').all() as { emitted_at: number | null }[])).toEqual([{ emitted_at: null }])
  expect((c.query('SELECT event_id FROM outbox').all() as { event_id: string }[]).map((r) => r.event_id)).toEqual(['s1'])
})

sqliteOnly('calls the SQLite prune operation directly (its PostgreSQL twin: test/db/pg/outbox/twins.test.ts)').test('pruneDeliveries: a step reads a bounded slice and says where the sweep goes on; site changes are capped too', async () => {
  const c = sqliteOf(ctx.db).$client
  const cutoff = Date.now()
  const old = cutoff - 10_000
  // Every other row recent: the first 2,000 rows read hold 1,000 old ones.
  await insertDeliveries(ctx.db, Array.from({ length: 2500 }, (_, i) => ({ eventId: `b${i}`, webhookId: hooks[0]!.id, at: i % 2 === 0 ? old : cutoff + 10 })))
  for (let i = 0; i < 5; i++) c.query(`INSERT INTO site_changes (team_id, status, occurred_at, emitted_at) VALUES (?, 'locales', ?, ?)`).run(TEAM, old, old)
  const seqs = (c.query('SELECT seq FROM outbox ORDER BY seq').all() as { seq: number }[]).map((r) => r.seq)
  // max 3: three old rows, then the sweep goes on after the third (seq index 4).
  expect(pruneDeliveries(sqliteOf(ctx.db).$client, cutoff, 3)).toEqual({ deliveries: 3, events: 3, siteChanges: 3, next: seqs[4]! })
  // A large max: the step stops after 2,000 rows read, 1,000 more old ones among them.
  expect(pruneDeliveries(sqliteOf(ctx.db).$client, cutoff, 10_000, () => true, seqs[4]!)).toEqual({ deliveries: 1000, events: 1000, siteChanges: 2, next: seqs[2004]! })
  // The lock taken: nothing written, the same place next time.
  expect(pruneDeliveries(sqliteOf(ctx.db).$client, cutoff, 10_000, () => false, seqs[2004]!)).toEqual({ deliveries: 0, events: 0, siteChanges: 0, next: seqs[2004]! })
  expect(pruneDeliveries(sqliteOf(ctx.db).$client, cutoff, 10_000, () => true, seqs[2004]!)).toEqual({ deliveries: 247, events: 247, siteChanges: 0, next: null })
  expect(await count('outbox')).toBe(1250)
  expect(await count('site_changes')).toBe(0)
})
