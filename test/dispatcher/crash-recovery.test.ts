/**
 * Crash recovery in seconds (db/outbox/liveness.ts; on PostgreSQL db/pg/outbox/liveness.ts), with
 * real dispatcher processes on the SQLite file or on the PostgreSQL pass the context's database,
 * and a real receiver: rows leased by a dispatcher that died are claimed as soon as another one finds its
 * lock free; a dispatcher alive but stopped (SIGSTOP) keeps its rows until their leases expire.
 */
import { afterEach, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, waitFor, type TestContext } from '../helpers'
import { processEnv } from '../process-db'
import { count } from '../rows'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { enqueueEvent } from '../../core/events/record'
import { samplePayload } from '../../core/webhooks/deliveries'

const root = new URL('../..', import.meta.url).pathname
const cleanup: (() => void | Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

async function setup(env: Record<string, string>) {
  const ctx: TestContext = await createTestContext()
  // Slow at first, so sends are in flight when a dispatcher is killed.
  const rx: TestReceiver = startReceiver([{ status: 200, delayMs: 1000 }])
  cleanup.push(() => ctx.close(), () => rx.stop())
  const res = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'crash', provider: 'custom', target: rx.url } })
  expect(res.status).toBe(201)
  await ctx.db.transaction(async (tx) => {
    for (let i = 0; i < 100; i++) await enqueueEvent(tx, samplePayload({ id: TEAM, workspaceId: 'main', defaultLocale: 'en' }, 'content.published', 'u-editor'))
  })
  const spawn = () => {
    const p = Bun.spawn(['bun', 'dispatcher/main.ts'], {
      cwd: root, stdout: 'ignore', stderr: 'inherit',
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...processEnv(ctx), LOG_LEVEL: 'error', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...env },
    })
    cleanup.push(async () => {
      p.kill('SIGCONT')
      p.kill('SIGKILL')
      await p.exited
    })
    return p
  }
  const undelivered = () => count(ctx.db, 'outbox', "status <> 'delivered'")
  const eventIds = () => rx.requests.map((r) => r.headers['x-service-delivery']!)
  return { ctx, rx, spawn, undelivered, eventIds }
}

test('kill -9 with 16 sends in flight (leases of 40 s), restart: every event delivered within 5 s of the restart', async () => {
  const { rx, spawn, undelivered, eventIds } = await setup({ WEBHOOK_TIMEOUT_MS: '10000' })
  const first = spawn()
  await waitFor(() => rx.requests.length >= 16, 20_000, '16 sends in flight')
  first.kill('SIGKILL')
  await first.exited
  expect(await undelivered()).toBe(100) // none recorded: every answer was still a second away
  rx.answers = [{ status: 200 }]
  const restartedAt = Date.now()
  spawn()
  await waitFor(async () => (await undelivered()) === 0, 5_000, 'every event delivered')
  console.log(`crash recovery: all 100 delivered ${Date.now() - restartedAt} ms after the restart`)
  expect(new Set(eventIds()).size).toBe(100)
}, 40_000)

test('two dispatchers: one stopped (SIGSTOP) keeps its rows until its leases expire; killed, the other takes them within 5 s', async () => {
  const { rx, spawn, undelivered, eventIds } = await setup({ WEBHOOK_TIMEOUT_MS: '5000', DISPATCHER_LEASE_MS: '20000' })
  const a = spawn()
  await waitFor(() => rx.requests.length >= 16, 20_000, '16 sends in flight')
  a.kill('SIGSTOP')
  rx.answers = [{ status: 200 }]
  spawn() // b: claims what a did not lease
  // a leased only its 16 sends (a webhook not yet known to be fast is not claimed ahead for).
  await waitFor(async () => (await undelivered()) === 16, 10_000, 'b delivers the 84 rows a had not leased')
  await Bun.sleep(1500) // a is alive (its lock held): b leaves its rows alone
  expect(await undelivered()).toBe(16)
  expect(eventIds()).toHaveLength(100)
  expect(new Set(eventIds()).size).toBe(100)
  const killedAt = Date.now()
  a.kill('SIGKILL')
  await a.exited
  await waitFor(async () => (await undelivered()) === 0, 5_000, 'b delivers a\'s rows')
  console.log(`two dispatchers: a's rows delivered by b ${Date.now() - killedAt} ms after the kill`)
  // a's 16 sends (answered while it was stopped, never recorded) go out again: at least once.
  expect(eventIds()).toHaveLength(116)
  expect(new Set(eventIds()).size).toBe(100)
}, 60_000)
