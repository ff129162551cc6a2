/**
 * What the dispatcher loop tests share: for each test a fresh app, a real receiver, a webhook
 * to it and a clock the test moves by hand, and a dispatcher built over them.
 */
import { rows } from '../rows'
import { storeFor } from './store-for'
import { afterEach, beforeEach, expect } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { createDispatcher } from '../../dispatcher/loop'
import { createLogger } from '../../core/log'
import { enqueueEvent } from '../../core/events/record'
import { samplePayload } from '../../core/webhooks/deliveries'

export const page = (id: string, parent: string | null, locales: Record<string, { title: string; slug: string }>) =>
  ({ id, contentType: 'page', fields: { parent }, locales })

/**
 * Registers the calling file's per-test set-up and tear-down; `fx.ctx`, `fx.rx`, `fx.hook` are
 * the current test's, and `fx.clock` is what the dispatcher reads as now (assign it to move time).
 */
export function loopFixture() {
  const fx = {
    ctx: undefined as unknown as TestContext,
    rx: undefined as unknown as TestReceiver,
    clock: 0,
    hook: undefined as unknown as { id: string; secret: string },
    dispatcher: (over: Partial<Parameters<typeof createDispatcher>[0]> = {}) => createDispatcher({
      db: fx.ctx.db, log: createLogger('silent', 'test'), metrics: fx.ctx.metrics, pollMs: 50, now: () => fx.clock,
      allowPrivateTargets: true, timeoutMs: 2000, random: () => 0.5, siteChangeQuietMs: 30_000, siteChangeMaxHoldMs: 1_800_000, ...storeFor(fx.ctx.db), ...over,
    }),
    payloads: () => fx.rx.requests.map((r) => JSON.parse(r.body)),
    /** `n` events for the team's webhooks, committed in one transaction. */
    enqueue: (n: number) =>
      fx.ctx.db.transaction(async (tx) => {
        for (let i = 0; i < n; i++) await enqueueEvent(tx, samplePayload({ id: TEAM, workspaceId: 'main', defaultLocale: 'en' }, 'content.published', 'u-editor'))
      }),
    /** The outbox by status: how many rows, how many still leased. */
    outboxState: () =>
      rows(fx.ctx.db, `SELECT status, COUNT(*) AS n, COUNT(lease_token) AS leased FROM outbox GROUP BY status ORDER BY status`),
    publish: async (doc: ReturnType<typeof page>) => {
      expect((await fx.ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
      expect((await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [doc.id] } })).body[0].status).toBe(0)
    },
  }
  beforeEach(async () => {
    fx.ctx = await createTestContext()
    fx.rx = startReceiver()
    fx.clock = Date.now() + 1000
    const res = await fx.ctx.call('POST', `/teams/${TEAM}/webhooks`, {
      token: TOKENS.webhooks, body: { label: 'site', provider: 'custom', target: fx.rx.url, events: ['content.published', 'content.unpublished', 'site.changed'] },
    })
    fx.hook = res.body
  })
  afterEach(async () => {
    fx.rx.stop()
    await fx.ctx.close()
  })
  return fx
}

/** A receiver on 127.0.0.1 that answers each request after `delayMs`, counting requests, distinct event ids and the most open at once. */
export function countingReceiver(delayMs: number) {
  let open = 0
  const state = { maxOpen: 0, count: 0, ids: new Set<string>() }
  const server = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    async fetch(req) {
      open++
      state.maxOpen = Math.max(state.maxOpen, open)
      state.ids.add(JSON.parse(await req.text()).eventId)
      await Bun.sleep(delayMs)
      open--
      state.count++
      return new Response('ok')
    },
  })
  return { state, url: `http://127.0.0.1:${server.port}/hook`, stop: () => server.stop(true) }
}
