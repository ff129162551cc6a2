/**
 * `verifyStandardWebhook` against the `standardwebhooks` package (the standard's own library, a
 * verifier and signer no one here wrote) and the service's signer, on Bun and, through the
 * committed build, on Node.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { DEFAULT_TOLERANCE_SECONDS, verifyStandardWebhook } from '../../receiver'
import { signStandard } from '../../core/delivery/sign'
import { generateStandardSecret } from '../../core/webhooks/service'
import { makeTestDir } from '../helpers'

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' // the standard's own example key (24 bytes)
const id = '0193a6c2-7f00-7000-8000-000000000001'
const body = '{"v":2,"eventType":"content.published","title":"Über"}'
const T = 1_764_000_000 // seconds
const at = (seconds: number) => () => seconds * 1000

const headersOf = (signature: string, timestamp = T, msgId = id) => ({ 'webhook-id': msgId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature })

test('our signer and the standardwebhooks package sign alike; each verifier takes the other\'s signature', () => {
  const ours = signStandard(id, T, body, secret)
  const theirs = new Webhook(secret).sign(id, new Date(T * 1000), body)
  expect(ours).toBe(theirs)
  expect(ours).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
  expect(verifyStandardWebhook(body, headersOf(theirs), secret, { now: at(T) })).toBe(true)
  // A generated key (32 bytes, padded base64) works for both as well.
  const generated = generateStandardSecret()
  const now = Math.floor(Date.now() / 1000)
  const signed = headersOf(signStandard(id, now, body, generated), now)
  expect(new Webhook(generated).verify(body, signed)).toEqual(JSON.parse(body))
  expect(verifyStandardWebhook(body, signed, generated)).toBe(true)
})

test('headers as fetch Headers or as node:http req.headers, any case; bytes and ArrayBuffer bodies', () => {
  const signature = signStandard(id, T, body, secret)
  const opts = { now: at(T) }
  expect(verifyStandardWebhook(body, new Headers(headersOf(signature)), secret, opts)).toBe(true)
  expect(verifyStandardWebhook(body, { 'Webhook-Id': id, 'WEBHOOK-TIMESTAMP': String(T), 'webhook-signature': [signature] }, secret, opts)).toBe(true)
  const bytes = new TextEncoder().encode(body)
  expect(verifyStandardWebhook(bytes, headersOf(signature), secret, opts)).toBe(true)
  expect(verifyStandardWebhook(bytes.buffer, headersOf(signature), secret, opts)).toBe(true)
  expect(verifyStandardWebhook(Buffer.from(body), headersOf(signature), secret, opts)).toBe(true)
})

test('anything changed is refused: body, id, timestamp, key, version; missing or doubled headers', () => {
  const signature = signStandard(id, T, body, secret)
  const opts = { now: at(T) }
  const other = 'whsec_' + Buffer.alloc(24, 7).toString('base64')
  const verdicts = {
    good: verifyStandardWebhook(body, headersOf(signature), secret, opts),
    body: verifyStandardWebhook(body + ' ', headersOf(signature), secret, opts),
    id: verifyStandardWebhook(body, headersOf(signature, T, 'another-id'), secret, opts),
    timestamp: verifyStandardWebhook(body, headersOf(signature, T + 1), secret, opts),
    key: verifyStandardWebhook(body, headersOf(signature), other, opts),
    v2: verifyStandardWebhook(body, headersOf(signature.replace('v1,', 'v2,')), secret, opts),
    noVersion: verifyStandardWebhook(body, headersOf(signature.slice(3)), secret, opts),
    serviceHeader: verifyStandardWebhook(body, headersOf('sha256=' + 'a'.repeat(64)), secret, opts),
    noId: verifyStandardWebhook(body, { 'webhook-timestamp': String(T), 'webhook-signature': signature }, secret, opts),
    noTimestamp: verifyStandardWebhook(body, { 'webhook-id': id, 'webhook-signature': signature }, secret, opts),
    noSignature: verifyStandardWebhook(body, { 'webhook-id': id, 'webhook-timestamp': String(T) }, secret, opts),
    badTimestamp: verifyStandardWebhook(body, { ...headersOf(signature), 'webhook-timestamp': `${T}.5` }, secret, opts),
    twoIds: verifyStandardWebhook(body, { ...headersOf(signature), 'webhook-id': [id, id] }, secret, opts),
    // Several signatures (a key rotation): one that matches is enough.
    rotation: verifyStandardWebhook(body, headersOf(`v1,${Buffer.alloc(32).toString('base64')} ${signature}`), secret, opts),
  }
  expect(verdicts).toEqual({
    good: true, body: false, id: false, timestamp: false, key: false, v2: false, noVersion: false, serviceHeader: false,
    noId: false, noTimestamp: false, noSignature: false, badTimestamp: false, twoIds: false, rotation: true,
  })
})

test('a replay older (or a timestamp newer) than the tolerance is refused; 5 minutes by default', () => {
  const signature = signStandard(id, T, body, secret)
  const check = (nowSeconds: number, toleranceSeconds?: number) =>
    verifyStandardWebhook(body, headersOf(signature), secret, { now: at(nowSeconds), ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }) })
  expect(DEFAULT_TOLERANCE_SECONDS).toBe(300)
  expect([check(T + 300), check(T + 301), check(T - 300), check(T - 301)]).toEqual([true, false, true, false])
  expect([check(T + 3600, 3600), check(T + 3601, 3600), check(T + 1, 0), check(T, 0)]).toEqual([true, false, false, true])
  // The standard's library draws the same line.
  const realNow = Math.floor(Date.now() / 1000)
  const old = headersOf(signStandard(id, realNow - 301, body, secret), realNow - 301)
  expect(() => new Webhook(secret).verify(body, old)).toThrow('Message timestamp too old')
  expect(verifyStandardWebhook(body, old, secret)).toBe(false)
})

test('misuse throws a TypeError instead of answering: an empty or non-whsec secret, a parsed body, a bad tolerance', () => {
  const h = headersOf(signStandard(id, T, body, secret))
  for (const bad of ['', 'whsec_', 'whsec_not base64!', undefined as unknown as string]) {
    expect(() => verifyStandardWebhook(body, h, bad)).toThrow(TypeError)
  }
  expect(() => verifyStandardWebhook({ parsed: true } as unknown as string, h, secret)).toThrow(TypeError)
  expect(() => verifyStandardWebhook(body, h, secret, { toleranceSeconds: -1 })).toThrow(TypeError)
  expect(() => verifyStandardWebhook(body, null as unknown as Headers, secret)).toThrow(TypeError)
  // The prefix is optional, as in the standard's libraries.
  expect(verifyStandardWebhook(body, h, secret.slice('whsec_'.length), { now: at(T) })).toBe(true)
})

const root = join(import.meta.dir, '../..')
const dir = makeTestDir('receiver-standard-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
mkdirSync(join(dir, 'node_modules'))
symlinkSync(root, join(dir, 'node_modules', 'content-service'))

/** Runs Node on the helpers imported from `from` and answers its verdicts. */
async function onNode(from: string) {
  const now = Math.floor(Date.now() / 1000)
  const cases = { good: signStandard(id, now, body, secret), old: signStandard(id, now - 400, body, secret) }
  const script = join(dir, `check-${Math.random().toString(36).slice(2)}.mjs`)
  writeFileSync(script, `
    import { verifyStandardWebhook } from ${JSON.stringify(from)}
    const body = ${JSON.stringify(body)}, secret = ${JSON.stringify(secret)}, id = ${JSON.stringify(id)}, now = ${now}
    const h = (sig, ts) => ({ 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': sig })
    const verdicts = {
      good: verifyStandardWebhook(body, h(${JSON.stringify(cases.good)}, now), secret),
      headers: verifyStandardWebhook(Buffer.from(body), new Headers(h(${JSON.stringify(cases.good)}, now)), secret),
      old: verifyStandardWebhook(body, h(${JSON.stringify(cases.old)}, now - 400), secret),
    }
    try { verifyStandardWebhook(body, h('x', now), ''); verdicts.emptySecret = 'accepted' } catch (e) { verdicts.emptySecret = e.constructor.name }
    console.log(JSON.stringify(verdicts))
  `)
  const proc = Bun.spawn(['node', script], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited]
  expect({ code, err }).toEqual({ code: 0, err: '' })
  return JSON.parse(out)
}

const onNodeExpected = { good: true, headers: true, old: false, emptySecret: 'TypeError' }

test('Node verifies through the committed build (content-service/receiver), and a fresh build answers the same', async () => {
  expect(await onNode('content-service/receiver')).toEqual(onNodeExpected)
  const out = await Bun.build({ entrypoints: [join(root, 'receiver/portable.ts')], target: 'node', format: 'esm', outdir: join(dir, 'fresh') })
  expect(out.success).toBe(true)
  expect(await onNode(join(dir, 'fresh', 'portable.js'))).toEqual(onNodeExpected)
}, 30_000)
