/**
 * spec.md "Delivery rules" 4: waits of 1-2 s, then 2-3 s, as a receiver sees them. The real
 * loop (`start()`, real clock, the default 250 ms poll) against a receiver answering 500, 500,
 * then 200, with the jitter pinned to its top, where a late pickup would push a wait out.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, waitFor, type TestContext } from '../helpers'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { createDispatcher } from '../../dispatcher/loop'
import { createLogger } from '../../core/log'
import { storeFor } from './store-for'

let ctx: TestContext
let rx: TestReceiver
beforeEach(async () => {
  ctx = await createTestContext()
  rx = startReceiver([{ status: 500 }, { status: 500 }, { status: 200 }])
})
afterEach(async () => {
  rx.stop()
  await ctx.close()
})

for (const [name, random] of [['top', 0.999999], ['bottom', 0]] as const) {
  test(`retries reach the receiver 1-2 s then 2-3 s after the previous attempt (jitter at its ${name})`, async () => {
    const hook = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'r', provider: 'custom', target: rx.url } })
    expect(hook.status).toBe(201)
    const d = createDispatcher({
      db: ctx.db, ...storeFor(ctx.db), log: createLogger('silent', 'test'), metrics: ctx.metrics, pollMs: 250, allowPrivateTargets: true,
      timeoutMs: 2000, random: () => random,
    })
    d.start()
    try {
      await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/home'] } })
      await waitFor(() => rx.requests.length >= 3, 10_000, 'three attempts')
    } finally {
      await d.stop()
    }
    const at = rx.requests.map((r) => r.at)
    const gaps = [at[1]! - at[0]!, at[2]! - at[1]!]
    expect({ first: gaps[0]! >= 1000 && gaps[0]! <= 2000, second: gaps[1]! >= 2000 && gaps[1]! <= 3000, gaps })
      .toEqual({ first: true, second: true, gaps })
    expect(new Set(rx.requests.map((r) => r.headers['x-service-delivery'])).size).toBe(1)
  }, 15_000)
}
