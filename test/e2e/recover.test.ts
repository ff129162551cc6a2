/**
 * End to end, the REAL dispatcher process (`bun dispatcher/main.ts`, on the SQLite file or on the
 * PostgreSQL pass the context's database) and real receivers on 127.0.0.1: events that failed while a receiver was down come back with one recover call, each
 * once, marked `manual` in the delivery log; and a recover of a large backlog leaves another
 * webhook's pace alone (the per-webhook send slots).
 */
import { afterEach, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, waitFor, type TestContext } from '../helpers'
import { processEnv } from '../process-db'
import { count as countRows, rows } from '../rows'
import { startReceiver, type Answer, type TestReceiver } from '../test-receiver'

const root = new URL('../..', import.meta.url).pathname
const cleanup: (() => void | Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

/** Sets what a receiver answers from now on (the test receiver repeats its last answer). */
const answerNow = (rx: TestReceiver, answer: Answer) => rx.answers.splice(0, rx.answers.length, answer)

async function hookFor(ctx: TestContext, team: string, token: string, rx: TestReceiver): Promise<string> {
  const res = await ctx.call('POST', `/teams/${team}/webhooks`, { token, body: { label: `e2e ${team}`, provider: 'custom', target: rx.url, events: ['content.published'] } })
  expect(res.status).toBe(201)
  return res.body.id
}

function spawnDispatcher(ctx: TestContext, env: Record<string, string> = {}) {
  const proc = Bun.spawn(['bun', 'dispatcher/main.ts'], {
    cwd: root, stdout: 'ignore', stderr: 'inherit',
    env: {
      PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...processEnv(ctx), LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      DISPATCHER_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '2000', DISPATCHER_LEASE_MS: '5000', ...env,
    },
  })
  cleanup.push(async () => {
    proc.kill('SIGKILL')
    await proc.exited
  })
}

/** Creates `n` pages in `team` and publishes them in batches: one content.published each. */
async function publishMany(ctx: TestContext, team: string, token: string, prefix: string, n: number) {
  const ids = Array.from({ length: n }, (_, i) => `pages/${prefix}-${i}`)
  for (const id of ids) {
    const doc = { id, contentType: 'page', fields: team === TEAM ? { parent: 'pages/home' } : {}, locales: { en: { title: id, ...(team === TEAM ? { slug: id.slice(6) } : {}) } } }
    expect((await ctx.call('POST', `/content/${team}`, { token, body: doc })).status).toBe(200)
  }
  for (let i = 0; i < n; i += 100) { // a batch publish takes at most 100 ids
    const res = await ctx.call('POST', `/content/publish/${team}`, { token, body: { ids: ids.slice(i, i + 100) } })
    expect(res.body.every((r: { status: number }) => r.status === 0)).toBe(true)
  }
  return ids
}

const count = (ctx: TestContext, hookId: string, status: string) => countRows(ctx.db, 'outbox', 'webhook_id = ? AND status = ?', hookId, status)

test('receiver down during 50 publishes, then one recover: 50/50 delivered, none twice, each marked manual in the log', async () => {
  const ctx = await createTestContext()
  const rx = startReceiver([{ status: 503, body: 'down' }])
  cleanup.push(() => ctx.close(), () => rx.stop())
  const hook = await hookFor(ctx, TEAM, TOKENS.webhooks, rx)
  spawnDispatcher(ctx)
  const since = new Date().toISOString()
  await publishMany(ctx, TEAM, TOKENS.editor, 'down', 50)
  // spec.md's three attempts (waits 1-2 s, then 2-3 s) all answered 503.
  await waitFor(async () => (await count(ctx, hook, 'failed')) === 50, 30_000, 'all 50 failed')
  expect(rx.requests).toHaveLength(150)
  const seenDown = rx.requests.length
  answerNow(rx, { status: 200, body: 'ok' })

  const res = await ctx.call('POST', `/teams/${TEAM}/webhooks/${hook}/recover`, { token: TOKENS.webhooks, body: { since } })
  expect({ status: res.status, body: res.body }).toEqual({ status: 202, body: { queued: 50 } })
  // A second recover over the same window while the first is under way queues nothing.
  expect((await ctx.call('POST', `/teams/${TEAM}/webhooks/${hook}/recover`, { token: TOKENS.webhooks, body: { since } })).body).toEqual({ queued: 0 })
  await waitFor(async () => (await count(ctx, hook, 'delivered')) === 50, 20_000, 'all 50 delivered')
  await Bun.sleep(500) // a second send of any of them would come now

  const after = rx.requests.slice(seenDown)
  const ids = after.map((r) => r.headers['x-service-delivery']!)
  expect(after).toHaveLength(50)
  expect(new Set(ids).size).toBe(50) // none twice
  // Each is an event that had failed, its bytes as first sent.
  const firstBodies = new Map(rx.requests.slice(0, seenDown).map((r) => [r.headers['x-service-delivery'], r.body]))
  expect(after.every((r) => firstBodies.get(r.headers['x-service-delivery']) === r.body)).toBe(true)
  // Oldest first: sent in the order the events were published (outbox seq), 16 at a time (the
  // webhook's send slots), so the first 16 to arrive are among the 32 oldest whatever the answer order.
  const order = (await rows<{ id: string }>(ctx.db, 'SELECT event_id AS id FROM outbox WHERE webhook_id = ? ORDER BY seq', hook)).map((r) => r.id)
  const oldest = new Set(order.slice(0, 32))
  expect(ids.slice(0, 16).filter((id) => !oldest.has(id))).toEqual([])

  // The delivery log tells which attempt came by the recover.
  const log = (await ctx.call('GET', `/teams/${TEAM}/webhooks/${hook}/deliveries?limit=100`, { token: TOKENS.webhooks })).body
  expect(log).toHaveLength(50)
  for (const d of log) {
    expect({ status: d.status, attempts: d.attempts.map((a: any) => `${a.attempt}:${a.trigger}:${a.statusCode}`) }).toEqual({
      status: 'delivered', attempts: ['1:scheduled:503', '2:scheduled:503', '3:scheduled:503', '1:manual:200'],
    })
  }
}, 90_000)

/**
 * The busy webhook's deliveries per second once all of its `n` new events are written (from the
 * publish's answer to its last receipt): while they are still being published, their pace is the
 * publish's, which the other webhook's recorded attempts slow (one write lock), not the
 * dispatcher's. Both receivers answer after 100 ms and each webhook has 4 send slots, so a
 * webhook's pace is its slots' (about 40/s), not this shared machine's CPU.
 */
async function busyPace(ctx: TestContext, rx: TestReceiver, prefix: string, n: number): Promise<number> {
  const from = rx.requests.length
  await publishMany(ctx, 'other', TOKENS.outsider, prefix, n)
  const published = Date.now()
  await waitFor(() => rx.requests.length - from >= n, 30_000, `${n} deliveries of the busy webhook`)
  const after = rx.requests.slice(from, from + n).filter((r) => r.at >= published)
  expect(after.length).toBeGreaterThanOrEqual(n / 2) // most of them are measured
  return after.length / ((after.at(-1)!.at - published) / 1000)
}

test('a recover of a large backlog leaves a busy webhook at its pace (within 1.2x)', async () => {
  const ctx = await createTestContext()
  const down = startReceiver([{ status: 503 }])
  const busy = startReceiver([{ status: 200, delayMs: 100 }])
  cleanup.push(() => ctx.close(), () => down.stop(), () => busy.stop())
  const recovering = await hookFor(ctx, TEAM, TOKENS.webhooks, down)
  await hookFor(ctx, 'other', TOKENS.outsider, busy)
  spawnDispatcher(ctx, { DISPATCHER_PER_WEBHOOK: '4' })
  const since = new Date().toISOString()
  const backlog = 400
  await publishMany(ctx, TEAM, TOKENS.editor, 'backlog', backlog)
  await waitFor(async () => (await count(ctx, recovering, 'failed')) === backlog, 60_000, 'the backlog failed')
  answerNow(down, { status: 200, delayMs: 100 })

  // 100 events: one batch publish writes them all at one moment, so nearly all are measured
  // however slow the publish is on a loaded machine (with 120, in two batches, the first 100 were
  // mostly delivered before the second batch answered: 56 of 120 measured on a loaded PostgreSQL pass).
  const alone = await busyPace(ctx, busy, 'alone', 100)
  const res = await ctx.call('POST', `/teams/${TEAM}/webhooks/${recovering}/recover`, { token: TOKENS.webhooks, body: { since } })
  expect(res.body).toEqual({ queued: backlog })
  const during = await busyPace(ctx, busy, 'during', 100)
  // The recover was still sending while the busy webhook was measured (400 at ~40/s take ~10 s).
  expect(await count(ctx, recovering, 'pending')).toBeGreaterThan(0)
  console.log(`busy webhook: ${alone.toFixed(1)}/s alone, ${during.toFixed(1)}/s during a recover of ${backlog}`)
  expect(during).toBeGreaterThanOrEqual(alone / 1.2)
  await waitFor(async () => (await count(ctx, recovering, 'delivered')) === backlog, 30_000, 'the recovered backlog delivered')
}, 180_000)
