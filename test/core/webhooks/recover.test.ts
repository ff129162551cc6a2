/**
 * core/webhooks/recover.ts below the route: the window's rules as a table, and the guard that
 * keeps a recover from queuing a delivery that failed again after it began.
 */
import { insertDelivery, row, run } from '../../rows'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../../helpers'
import { parseWindow, recoverFailed } from '../../../core/webhooks/recover'
import { AppError } from '../../../core/errors'

const NOW = Date.parse('2026-11-28T12:00:00Z')

test('parseWindow: [since, until) in ms, until defaulting to now; every refusal is bad_window', () => {
  expect(parseWindow({ since: '2026-11-28T11:00:00Z' }, NOW)).toEqual({ since: NOW - 3_600_000, until: NOW })
  expect(parseWindow({ since: '2026-11-28T12:00:00+01:00', until: '2026-11-28T11:30:00Z' }, NOW)).toEqual({ since: NOW - 3_600_000, until: NOW - 1_800_000 })
  // An until in the future is fine (nothing there has failed yet, but the window is meant).
  expect(parseWindow({ since: '2026-11-28', until: '2026-11-29' }, NOW)).toEqual({ since: Date.parse('2026-11-28T00:00:00Z'), until: Date.parse('2026-11-29T00:00:00Z') })
  const refused = (input: { since: string; until?: string }) => {
    try {
      parseWindow(input, NOW)
      return 'accepted'
    } catch (e) {
      return e instanceof AppError ? `${e.status} ${e.code}` : String(e)
    }
  }
  for (const input of [
    { since: 'now' }, { since: '2026-11-28T11:00:00' }, { since: '2026-11-28T24:00:00Z' }, { since: '2026-11-28T12:00:00.001Z' },
    { since: '2026-11-28T11:00:00Z', until: '2026-11-28T11:00:00Z' }, { since: '2026-11-28T11:00:00Z', until: '2026-11-28T10:59:59Z' },
    { since: '2026-11-28T11:00:00Z', until: 'tomorrow' },
  ]) expect({ input, answer: refused(input) }).toEqual({ input, answer: '400 bad_window' })
})

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

test('a delivery written after the recover began (queued and failed again meanwhile) is not queued by it', async () => {
  const hook = (await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'r', provider: 'custom', target: 'http://127.0.0.1:9/x' } })).body.id
  const c = ctx.db
  const early = await insertDelivery(c, { eventId: 'failed-before', webhookId: hook, status: 'failed', attempts: 3, at: NOW - 60_000 })
  const late = await insertDelivery(c, { eventId: 'failed-again', webhookId: hook, status: 'failed', attempts: 3, at: NOW - 50_000 })
  await run(c, 'UPDATE outbox SET updated_at = ? WHERE seq = ?', NOW + 1, late)
  expect(await recoverFailed(ctx.db, TEAM, hook, { since: '2026-11-28T11:00:00Z' }, NOW)).toEqual({ queued: 1 })
  const status = async (seq: number) => (await row<{ status: string }>(c, 'SELECT status FROM outbox WHERE seq = ?', seq))!.status
  expect([await status(early), await status(late)]).toEqual(['pending', 'failed'])
})
