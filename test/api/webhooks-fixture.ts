/**
 * What the webhook API tests share: one app per test file (created before its tests, closed
 * after), a fresh receiver for each test, and helpers bound to that file's app.
 */
import { payloadOf } from '../rows'
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'
import { startReceiver, type TestReceiver } from '../test-receiver'

export const base = `/teams/${TEAM}/webhooks`
export const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/)

/** Registers the calling file's app and per-test receiver; `fx.ctx` and `fx.rx` are that file's own. */
export function webhooksFixture() {
  const fx = {
    ctx: undefined as unknown as TestContext,
    rx: undefined as unknown as TestReceiver,
    create: (body: Record<string, unknown>, token: string | null = TOKENS.webhooks) => fx.ctx.call('POST', base, { token, body }),
    /** The payloads of a webhook's delivery log, newest first, as stored for sending. */
    loggedPayloads: async (hookId: string): Promise<any[]> => {
      const log = (await fx.ctx.call('GET', `${base}/${hookId}/deliveries`, { token: TOKENS.webhooks })).body
      return await Promise.all(log.map((d: any) => payloadOf(fx.ctx.db, d.eventId)))
    },
  }
  beforeAll(async () => { fx.ctx = await createTestContext() })
  afterAll(() => fx.ctx.close())
  beforeEach(() => { fx.rx = startReceiver() })
  afterEach(() => fx.rx.stop())
  return fx
}
