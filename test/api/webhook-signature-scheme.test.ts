/**
 * A webhook's `signatureScheme` (contract.md "Webhooks"): `service` by default, or
 * `standard-webhooks` with a `whsec_` key; create, update, the record, the stored row, the test
 * send's headers and the OpenAPI document.
 */
import { row } from '../rows'
import { expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { TOKENS } from '../helpers'
import { verifySignature, verifyStandardWebhook } from '../../receiver'
import { base, webhooksFixture } from './webhooks-fixture'

const fx = webhooksFixture()

const WHSEC = /^whsec_[A-Za-z0-9+/]{43}=$/ // 32 random bytes
const KEY24 = 'whsec_' + Buffer.alloc(24, 1).toString('base64')
const OWN = 'my-own-secret-0123456789-abcdef-1234'
const create = (body: Record<string, unknown>) => fx.ctx.call('POST', base, { token: TOKENS.webhooks, body: { label: 'SW', provider: 'custom', target: fx.rx.url, ...body } })
const patch = (id: string, body: Record<string, unknown>) => fx.ctx.call('PATCH', `${base}/${id}`, { token: TOKENS.webhooks, body })
const stored = async (id: string) => {
  const got = (await row(fx.ctx.db, 'SELECT secret, options FROM webhooks WHERE id = ?', id)) as { secret: string; options: string }
  return { secret: got.secret, options: JSON.parse(got.options) }
}

test('standard-webhooks without a secret: a whsec_ key of 32 random bytes is generated and shown once', async () => {
  const res = await create({ signatureScheme: 'standard-webhooks' })
  expect(res.status).toBe(201)
  // (toMatchObject replaces what an asymmetric matcher matched in the object it reads: the secret is checked apart.)
  expect(res.body.secret).toMatch(WHSEC)
  expect(res.body).toMatchObject({ signatureScheme: 'standard-webhooks', options: {} })
  expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(32)
  expect(res.body.secretLast4).toBe(res.body.secret.slice(-4))
  expect(await stored(res.body.id)).toEqual({ secret: res.body.secret, options: { signatureScheme: 'standard-webhooks' } })
  const read = await fx.ctx.call('GET', `${base}/${res.body.id}`, { token: TOKENS.webhooks })
  expect(read.body.signatureScheme).toBe('standard-webhooks')
  expect(read.text).not.toContain(res.body.secret)
})

test('the default scheme is service, and its stored row carries no scheme (as before the setting)', async () => {
  const res = await create({})
  expect(res.body.signatureScheme).toBe('service')
  expect(res.body.secret).toHaveLength(43) // today's base64url secret
  expect((await stored(res.body.id)).options).toEqual({})
  const named = await create({ signatureScheme: 'service', secret: OWN })
  expect(named.body).toMatchObject({ signatureScheme: 'service', secret: OWN })
  expect((await stored(named.body.id)).options).toEqual({})
})

test('a secret the user enters for standard-webhooks must be whsec_ + base64 of at least 24 bytes (400 invalid_secret)', async () => {
  const ok = await create({ signatureScheme: 'standard-webhooks', secret: KEY24 })
  expect(ok).toMatchObject({ status: 201, body: { secret: KEY24 } })
  const bad = [
    OWN, // long enough for the service scheme, no whsec_ key
    'whsec_' + Buffer.alloc(23, 1).toString('base64') + 'AAAA', // padding in the middle
    'whsec_' + Buffer.alloc(16, 1).toString('base64') + 'ab', // not canonical base64
    'whsec_' + Buffer.alloc(20, 1).toString('base64'), // 20 bytes: too short a key
    'whsec_' + Buffer.alloc(32, 255).toString('base64url'), // base64url alphabet: the standard's libraries read base64
    'whsec_' + Buffer.alloc(32, 1).toString('base64').replace(/=+$/, ''), // padding left out
    'WHSEC_' + Buffer.alloc(32, 1).toString('base64'),
  ]
  for (const secret of bad) {
    const res = await create({ signatureScheme: 'standard-webhooks', secret })
    expect({ secret, status: res.status, body: res.body }).toEqual({ secret, status: 400, body: { error: 'invalid_secret', message: expect.stringContaining('`whsec_`') } })
  }
  // An unknown scheme is a wrong body.
  const unknown = await create({ signatureScheme: 'svix' })
  expect({ status: unknown.status, error: unknown.body.error }).toEqual({ status: 400, error: 'invalid_body' })
})

test('PATCH to standard-webhooks: a stored secret that is no whsec_ key is replaced by a generated one, answered once', async () => {
  const hook = (await create({ secret: OWN })).body
  const res = await patch(hook.id, { signatureScheme: 'standard-webhooks' })
  expect(res.body.secret).toMatch(WHSEC)
  expect(res).toMatchObject({ status: 200, body: { signatureScheme: 'standard-webhooks' } })
  expect(await stored(hook.id)).toEqual({ secret: res.body.secret, options: { signatureScheme: 'standard-webhooks' } })
  // Later updates keep the scheme and the key, and do not show it again.
  const renamed = await patch(hook.id, { label: 'Renamed' })
  expect(renamed.body).toMatchObject({ label: 'Renamed', signatureScheme: 'standard-webhooks' })
  expect(renamed.body.secret).toBeUndefined()
  expect((await stored(hook.id)).secret).toBe(res.body.secret)
  // A new secret for it must be a whsec_ key; a refused one changes nothing.
  const refused = await patch(hook.id, { secret: OWN, label: 'Changed' })
  expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 400, error: 'invalid_secret' })
  expect((await stored(hook.id)).secret).toBe(res.body.secret)
  expect((await patch(hook.id, { secret: KEY24 })).body).toMatchObject({ secret: KEY24, signatureScheme: 'standard-webhooks' })
})

test('PATCH to standard-webhooks with a stored whsec_ key keeps it; back to service keeps the key and drops the stored scheme', async () => {
  const hook = (await create({ secret: KEY24 })).body
  const res = await patch(hook.id, { signatureScheme: 'standard-webhooks' })
  expect(res.body.signatureScheme).toBe('standard-webhooks')
  expect(res.body.secret).toBeUndefined()
  expect(await stored(hook.id)).toEqual({ secret: KEY24, options: { signatureScheme: 'standard-webhooks' } })
  const back = await patch(hook.id, { signatureScheme: 'service' })
  expect(back.body).toMatchObject({ signatureScheme: 'service' })
  expect(back.body.secret).toBeUndefined()
  expect(await stored(hook.id)).toEqual({ secret: KEY24, options: {} })
  // Switching to standard-webhooks with a refused secret in the same request changes nothing.
  const refused = await patch(hook.id, { signatureScheme: 'standard-webhooks', secret: OWN })
  expect(refused.status).toBe(400)
  expect(await stored(hook.id)).toEqual({ secret: KEY24, options: {} })
})

test('a github webhook keeps its token and event type beside the scheme; a move to custom keeps the scheme', async () => {
  const github = { provider: 'github', target: 'https://api.github.com/repos/o/r/dispatches', options: { token: 'ghp_0123456789abcdef0123', eventType: 'cms' } }
  const res = await create({ ...github, signatureScheme: 'standard-webhooks' })
  expect(res.status).toBe(201)
  expect(res.body).toMatchObject({ signatureScheme: 'standard-webhooks', options: { eventType: 'cms', tokenLast4: '0123' } })
  expect((await stored(res.body.id)).options).toEqual({ token: 'ghp_0123456789abcdef0123', eventType: 'cms', signatureScheme: 'standard-webhooks' })
  const moved = await patch(res.body.id, { provider: 'custom', target: fx.rx.url })
  expect(moved.body).toMatchObject({ provider: 'custom', options: {}, signatureScheme: 'standard-webhooks' })
  expect((await stored(res.body.id)).options).toEqual({ signatureScheme: 'standard-webhooks' })
})

test('the test send signs the same way: standard-webhooks headers verified by the standardwebhooks package and by ours', async () => {
  const hook = (await create({ signatureScheme: 'standard-webhooks' })).body
  const before = Math.floor(Date.now() / 1000)
  const res = await fx.ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
  expect(res.body).toMatchObject({ delivered: true, status: 200 })
  const [req] = fx.rx.requests
  const h = req!.headers
  const payload = JSON.parse(req!.body)
  expect(h['webhook-id']).toBe(payload.eventId)
  expect(h['x-service-delivery']).toBe(payload.eventId)
  expect(Number(h['webhook-timestamp'])).toBeGreaterThanOrEqual(before)
  expect(Number(h['webhook-timestamp'])).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
  expect(new Webhook(hook.secret).verify(req!.body, h)).toEqual(payload)
  expect(verifyStandardWebhook(req!.body, h, hook.secret)).toBe(true)
  // spec.md's headers stay, signed with the same secret's text.
  expect(verifySignature(req!.body, h['x-service-signature'], hook.secret)).toBe(true)
  expect(h['x-service-event']).toBe(payload.eventType)
})

test('a service-scheme test send has none of the Standard Webhooks headers', async () => {
  const hook = (await create({ secret: KEY24 })).body
  await fx.ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
  const names = Object.keys(fx.rx.requests[0]!.headers).filter((k) => k.startsWith('webhook-') || k.startsWith('x-service-'))
  expect(names.sort()).toEqual(['x-service-delivery', 'x-service-event', 'x-service-signature'])
})

test('OpenAPI: the record, create and update name signatureScheme with its two values', async () => {
  const doc = (await fx.ctx.call('GET', '/swagger/json', { token: null })).body
  const values = (s: any) => s.anyOf.map((v: any) => v.const)
  const schemas = doc.components.schemas
  expect(values(schemas.WebhookRecord.properties.signatureScheme)).toEqual(['service', 'standard-webhooks'])
  expect(schemas.WebhookRecord.required).toContain('signatureScheme')
  expect(values(schemas.WebhookCreate.properties.signatureScheme)).toEqual(['service', 'standard-webhooks'])
  expect(schemas.WebhookCreate.required ?? []).not.toContain('signatureScheme')
  expect(values(schemas.WebhookUpdate.properties.signatureScheme)).toEqual(['service', 'standard-webhooks'])
})
