/**
 * End to end, the REAL dispatcher process (`bun dispatcher/main.ts`, on the SQLite file or on the
 * PostgreSQL pass the context's database) delivering to real receivers on 127.0.0.1: a
 * `standard-webhooks` webhook's deliveries (first attempts and retries) are verified by the
 * `standardwebhooks` package's `Webhook.verify` and by our receiver helper, and a `service`
 * webhook's requests carry exactly the headers they carried before the setting.
 */
import { afterEach, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { createTestContext, TEAM, TOKENS, waitFor } from '../helpers'
import { processEnv } from '../process-db'
import { payloadText } from '../rows'
import { startReceiver } from '../test-receiver'
import { verifySignature, verifyStandardWebhook } from '../../receiver'

const root = new URL('../..', import.meta.url).pathname
const cleanup: (() => void | Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

async function setup(hooks: Record<string, unknown>[], answers = [{ status: 200 }]) {
  const ctx = await createTestContext()
  cleanup.push(() => ctx.close())
  const made = []
  for (const body of hooks) {
    const rx = startReceiver([...answers])
    cleanup.push(() => rx.stop())
    const res = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'e2e', provider: 'custom', target: rx.url, ...body } })
    expect(res.status).toBe(201)
    made.push({ rx, secret: res.body.secret as string, id: res.body.id as string })
  }
  const proc = Bun.spawn(['bun', 'dispatcher/main.ts'], {
    cwd: root, stdout: 'ignore', stderr: 'inherit',
    env: {
      PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...processEnv(ctx), LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      DISPATCHER_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '2000', DISPATCHER_LEASE_MS: '5000',
    },
  })
  cleanup.push(async () => {
    proc.kill('SIGKILL')
    await proc.exited
  })
  const publish = async (id: string) => {
    const doc = { id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: id, slug: id.split('/').pop() } } }
    expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
    expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })).body[0].status).toBe(0)
  }
  return { ctx, hooks: made, publish }
}

test('standard-webhooks deliveries of the dispatcher, retries included, pass Webhook.verify and ours; a replay past the tolerance fails ours', async () => {
  const { hooks: [hook], publish } = await setup([{ signatureScheme: 'standard-webhooks' }], [{ status: 503 }, { status: 200 }])
  const { rx, secret } = hook!
  await publish('pages/standard')
  await waitFor(() => rx.requests.length >= 2, 15_000, 'the retry')
  const [first, second] = rx.requests
  const payload = JSON.parse(first!.body)
  for (const req of [first!, second!]) {
    expect(req.body).toBe(first!.body) // the stored bytes, every attempt
    expect(req.headers['webhook-id']).toBe(payload.eventId)
    expect(req.headers['webhook-timestamp']).toMatch(/^\d+$/)
    // The send time of that attempt, in seconds.
    expect(Math.abs(Number(req.headers['webhook-timestamp']) - Math.floor(req.at / 1000))).toBeLessThanOrEqual(1)
    expect(new Webhook(secret).verify(req.body, req.headers)).toEqual(payload)
    expect(verifyStandardWebhook(req.body, req.headers, secret)).toBe(true)
    expect(verifySignature(req.body, req.headers['x-service-signature'], secret)).toBe(true) // spec.md's header stays
  }
  // The retry came 1-2 s later: its own timestamp and signature, the same id.
  expect(Number(second!.headers['webhook-timestamp'])).toBeGreaterThan(Number(first!.headers['webhook-timestamp']))
  expect(second!.headers['webhook-signature']).not.toBe(first!.headers['webhook-signature'])
  // The same request sent again six minutes later (a replay) is refused by our verifier.
  const later = () => second!.at + 6 * 60_000
  expect(verifyStandardWebhook(second!.body, second!.headers, secret, { now: later })).toBe(false)
  expect(verifyStandardWebhook(second!.body, second!.headers, secret, { now: () => second!.at + 4 * 60_000 })).toBe(true)
}, 30_000)

test('a service webhook beside it gets exactly the headers recorded before the setting, and the body as stored', async () => {
  const { ctx, hooks: [service, standard], publish } = await setup([{}, { signatureScheme: 'standard-webhooks' }])
  await publish('pages/both')
  await waitFor(() => service!.rx.requests.length >= 1 && standard!.rx.requests.length >= 1, 15_000, 'both deliveries')
  const req = service!.rx.requests[0]!
  const stored = await payloadText(ctx.db, req.headers['x-service-delivery']!)
  expect(req.body).toBe(stored)
  // Recorded from the code before `signatureScheme` existed (header names as received, in order).
  expect(Object.keys(req.headers)).toEqual([
    'accept', 'accept-encoding', 'connection', 'content-length', 'content-type', 'host', 'user-agent', 'x-service-delivery', 'x-service-event', 'x-service-signature',
  ])
  const payload = JSON.parse(stored)
  expect(req.headers).toMatchObject({
    'content-type': 'application/json; charset=utf-8', 'user-agent': 'Service-Webhooks/1.0', 'content-length': String(Buffer.byteLength(stored)),
    'x-service-delivery': payload.eventId, 'x-service-event': 'content.published',
  })
  expect(req.headers['x-service-signature']).toBe('sha256=' + new Bun.CryptoHasher('sha256', service!.secret).update(stored).digest('hex'))
  // The standard-webhooks one got the same event with the three headers more.
  const other = standard!.rx.requests[0]!
  expect(other.body).toBe(stored)
  expect(Object.keys(other.headers).filter((k) => !(k in req.headers)).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp'])
}, 30_000)
