/**
 * Wake on commit (db/outbox/wake.ts, db/outbox/wake-listener.ts): a commit that writes outbox
 * rows hints the started dispatchers, which claim at once. The dispatcher here shares the api's
 * connection, whose own commits `PRAGMA data_version` does not see, and polls once a minute:
 * only the hint can bring the delivery within the second.
 */
import { insertDelivery } from '../rows'
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTestContext, TEAM, TOKENS, waitFor, type TestContext } from '../helpers'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { createDispatcher } from '../../dispatcher/loop'
import { dispatchersDir } from '../../db/outbox/wake'
import { createLogger } from '../../core/log'

let ctx: TestContext
let rx: TestReceiver
let hook: string
beforeEach(async () => {
  ctx = await createTestContext()
  rx = startReceiver()
  hook = (await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'w', provider: 'custom', target: rx.url } })).body.id
})
afterEach(async () => {
  rx.stop()
  await ctx.close()
})

test('a publish wakes a started dispatcher at once; a stopped one leaves no port behind', async () => {
  const dir = dispatchersDir(ctx.path)
  const d = createDispatcher({ db: ctx.db, log: createLogger('silent', 'test'), metrics: ctx.metrics, pollMs: 60_000, allowPrivateTargets: true, livenessDir: dir })
  d.start()
  try {
    await waitFor(() => readdirSync(dir).some((f) => f.endsWith('.port')), 5000, 'the wake port')
    await Bun.sleep(50) // past the first full pass: from here only a hint (or a minute) claims
    const t0 = Date.now()
    expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/home'] } })).status).toBe(200)
    await waitFor(() => rx.requests.length === 1, 2000, 'the delivery')
    expect(Date.now() - t0).toBeLessThan(1000)
  } finally {
    await d.stop()
  }
  expect(readdirSync(dir)).toEqual([])
  expect(existsSync(dir)).toBe(true)
})

test('a process that wrote outbox rows with a dispatcher listening exits when its work is done (the hint socket holds nothing open)', async () => {
  const dir = dispatchersDir(ctx.path)
  const hints: number[] = []
  const listener = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0, socket: { data: () => void hints.push(Date.now()) } })
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'someone.port'), String(listener.port))
  const script = `
    import { openDb } from './db/client'
    import { enqueueEvent } from './core/events/record'
    import { samplePayload } from './core/webhooks/deliveries'
    const db = openDb(${JSON.stringify(ctx.path)})
    await db.transaction((tx) => enqueueEvent(tx, samplePayload({ id: '${TEAM}', workspaceId: 'main', defaultLocale: 'en' }, 'content.published', 'u')))`
  const p = Bun.spawn(['bun', '-e', script], { cwd: new URL('../..', import.meta.url).pathname, stdout: 'ignore', stderr: 'inherit' })
  const exited = await Promise.race([p.exited, Bun.sleep(10_000).then(() => 'still running')])
  if (exited === 'still running') p.kill('SIGKILL')
  listener.close()
  expect(exited).toBe(0)
  expect(hints).toHaveLength(1)
})

test('a redeliver and a recover wake a started dispatcher too: the manual sends go out at once, not at its next check', async () => {
  const dir = dispatchersDir(ctx.path)
  const now = Date.now()
  // Two deliveries that used up their attempts a minute ago (the receiver was down then).
  await insertDelivery(ctx.db, { eventId: 'missed-1', webhookId: hook, status: 'failed', attempts: 3, at: now - 60_000 })
  await insertDelivery(ctx.db, { eventId: 'missed-2', webhookId: hook, status: 'failed', attempts: 3, at: now - 60_000 })
  const d = createDispatcher({ db: ctx.db, log: createLogger('silent', 'test'), metrics: ctx.metrics, pollMs: 60_000, allowPrivateTargets: true, livenessDir: dir })
  d.start()
  try {
    await waitFor(() => readdirSync(dir).some((f) => f.endsWith('.port')), 5000, 'the wake port')
    await Bun.sleep(50) // past the first full pass: from here only a hint (or a minute) claims
    const base = `/teams/${TEAM}/webhooks/${hook}`
    let t0 = Date.now()
    expect((await ctx.call('POST', `${base}/deliveries/missed-1/redeliver`, { token: TOKENS.webhooks })).status).toBe(202)
    await waitFor(() => rx.requests.length === 1, 2000, 'the redelivery')
    expect(Date.now() - t0).toBeLessThan(1000)
    t0 = Date.now()
    const recovered = await ctx.call('POST', `${base}/recover`, { token: TOKENS.webhooks, body: { since: new Date(now - 120_000).toISOString() } })
    expect({ status: recovered.status, body: recovered.body }).toEqual({ status: 202, body: { queued: 1 } })
    await waitFor(() => rx.requests.length === 2, 2000, 'the recovered delivery')
    expect(Date.now() - t0).toBeLessThan(1000)
  } finally {
    await d.stop()
  }
})

test('a hint to a dispatcher gone without removing its port file (kill -9) costs nothing: the writer lives on, the live one is still hinted', async () => {
  const dir = dispatchersDir(ctx.path)
  mkdirSync(dir, { recursive: true })
  const gone = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0 })
  writeFileSync(join(dir, 'gone.port'), String(gone.port))
  gone.close() // its port now answers with "port unreachable", which the next send reports as ECONNREFUSED
  const hints: number[] = []
  const live = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0, socket: { data: () => void hints.push(Date.now()) } })
  writeFileSync(join(dir, 'live.port'), String(live.port))
  const script = `
    import { openDb } from './db/client'
    import { enqueueEvent } from './core/events/record'
    import { samplePayload } from './core/webhooks/deliveries'
    const db = openDb(${JSON.stringify(ctx.path)})
    for (let i = 0; i < 20; i++) {
      await db.transaction((tx) => enqueueEvent(tx, samplePayload({ id: '${TEAM}', workspaceId: 'main', defaultLocale: 'en' }, 'content.published', 'u')))
      await Bun.sleep(5)
    }
    console.log('alive')`
  const p = Bun.spawn(['bun', '-e', script], { cwd: new URL('../..', import.meta.url).pathname, stdout: 'pipe', stderr: 'pipe' })
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()])
  live.close()
  expect({ code, out: out.trim(), err }).toEqual({ code: 0, out: 'alive', err: '' })
  expect(hints.length).toBeGreaterThanOrEqual(10)
})
