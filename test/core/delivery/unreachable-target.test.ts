/**
 * A webhook target whose name resolves to a private address and one whose name does not resolve
 * are told the same, in the test send's answer and in the delivery log: told apart, they let a
 * caller map which internal names exist. Why is in the log line, for operators.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { hostname } from 'node:os'
import { createDispatcher } from '../../../dispatcher/loop'
import { createLogger } from '../../../core/log'
import { blockedAddressReason, systemLookup, UNREACHABLE_TARGET, type Lookup } from '../../../core/delivery/ssrf'
import { createTestContext, TEAM, TOKENS, waitFor, type TestContext } from '../../helpers'
import { storeFor } from '../../dispatcher/store-for'

let ctx: TestContext
let lines: Record<string, any>[]
const base = `/teams/${TEAM}/webhooks`
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/)

beforeEach(async () => {
  lines = []
  ctx = await createTestContext({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }, logTo: (line) => void lines.push(JSON.parse(line)) })
})
afterEach(() => ctx.close())

async function hookTo(target: string): Promise<string> {
  const res = await ctx.call('POST', base, { token: TOKENS.webhooks, body: { label: target, provider: 'custom', target } })
  expect(res.status).toBe(201)
  return res.body.id
}

const deliveryLog = async (id: string) => (await ctx.call('GET', `${base}/${id}/deliveries`, { token: TOKENS.webhooks })).body

test('test send: a name resolving to a private address and one that does not resolve answer the same refusal, logged the same; the log line says why', async () => {
  // This machine's own name resolves to a private address on most hosts (/etc/hosts); `.invalid` never resolves (RFC 6761).
  const own = hostname()
  const addresses = await systemLookup(own).catch(() => [] as string[])
  expect(addresses.length > 0 && addresses.every((a) => blockedAddressReason(a) !== null)).toBe(true)
  const privateName = await hookTo(`https://${own}/hook`)
  const noName = await hookTo('https://no-such-host.invalid/hook')

  const answers = []
  for (const id of [privateName, noName]) {
    const res = await ctx.call('POST', `${base}/${id}/test`, { token: TOKENS.webhooks })
    expect(res.status).toBe(200)
    answers.push(res.body)
  }
  expect(answers).toEqual([0, 1].map(() => ({ delivered: false, status: null, durationMs: expect.any(Number), responseBody: '', error: UNREACHABLE_TARGET })))
  for (const id of [privateName, noName]) {
    expect(await deliveryLog(id)).toEqual([{
      eventId: expect.any(String), eventType: 'content.published', status: 'failed', createdAt: ISO,
      attempts: [{ attempt: 1, trigger: 'test', at: ISO, statusCode: null, error: UNREACHABLE_TARGET, durationMs: expect.any(Number), nextAttemptAt: null, responseBody: '' }],
    }])
  }
  const refused = lines.filter((l) => l.msg === 'webhook test send refused')
  expect(refused).toEqual([
    expect.objectContaining({ level: 40, webhookId: privateName, error: UNREACHABLE_TARGET, detail: expect.stringMatching(/^resolves to a non-public address, .* \(loopback|private\)/) }),
    expect.objectContaining({ level: 40, webhookId: noName, error: UNREACHABLE_TARGET, detail: expect.stringMatching(/^cannot resolve host \(E[A-Z_]+\)$/) }),
  ])
})

test('dispatcher: the delivery log holds the same refusal for both; the log line says why', async () => {
  const lookup: Lookup = async (host) => {
    if (host === 'inside.test') return ['10.1.2.3']
    throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' })
  }
  const inside = await hookTo('https://inside.test/hook')
  const nowhere = await hookTo('https://nowhere.test/hook')
  const log: Record<string, any>[] = []
  const dispatcher = createDispatcher({
    db: ctx.db, ...storeFor(ctx.db), log: createLogger('info', 'dispatcher', { write: (line: string) => void log.push(JSON.parse(line)) }), metrics: ctx.metrics,
    pollMs: 50, allowPrivateTargets: false, timeoutMs: 2000, random: () => 0.5, siteChangeQuietMs: 30_000, siteChangeMaxHoldMs: 1_800_000, lookup,
  })
  expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/home'] } })).status).toBe(200)
  await dispatcher.runOnce()
  await waitFor(async () => (await deliveryLog(nowhere))[0]?.attempts.length === 1 && (await deliveryLog(inside))[0]?.attempts.length === 1, 5000, 'both attempts logged')
  await dispatcher.stop()
  for (const id of [inside, nowhere]) {
    expect((await deliveryLog(id))[0].attempts.map((a: { error: string; statusCode: number | null }) => [a.statusCode, a.error])).toEqual([[null, UNREACHABLE_TARGET]])
  }
  const byHook = (id: string) => log.find((l) => l.webhookId === id && l.error)
  expect(byHook(inside)).toMatchObject({ error: UNREACHABLE_TARGET, detail: 'resolves to a non-public address, 10.1.2.3 (private); WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows it' })
  expect(byHook(nowhere)).toMatchObject({ error: UNREACHABLE_TARGET, detail: 'cannot resolve host (ENOTFOUND)' })
})
