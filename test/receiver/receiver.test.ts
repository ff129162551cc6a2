import { afterAll, expect, test } from 'bun:test'
import { runInNewContext } from 'node:vm'
import { connect } from 'node:net'
import { verify } from '@octokit/webhooks-methods'
import { createDedupe, startExampleReceiver, verifySignature } from '../../receiver'
import { MAX_EVENT_BYTES } from '../../receiver/example'
import { sign } from '../../core/delivery/sign'
import { isSiteVisibleChange } from '../../core/teams/site-visible'

test('verifySignature agrees with the signer and with @octokit/webhooks-methods', async () => {
  const body = '{"v":2,"eventType":"content.published","title":"Über"}'
  const header = sign(body, 'secret')
  expect(header).toMatch(/^sha256=[0-9a-f]{64}$/)
  expect(verifySignature(body, header, 'secret')).toBe(true)
  expect(verifySignature(new TextEncoder().encode(body), header, 'secret')).toBe(true)
  expect(await verify('secret', body, header)).toBe(true)
  expect(verifySignature(body, header, 'other')).toBe(false)
  expect(verifySignature(body + ' ', header, 'secret')).toBe(false)
  expect(verifySignature(body, header.slice(7), 'secret')).toBe(false) // no sha256= prefix
  expect(verifySignature(body, 'sha1=' + header.slice(7), 'secret')).toBe(false)
  expect(verifySignature(body, 'sha256=' + header.slice(7).toUpperCase(), 'secret')).toBe(false)
  expect(verifySignature(body, 'sha256=abc', 'secret')).toBe(false)
  expect(verifySignature(body, null, 'secret')).toBe(false)
})

test('dedupe: repeats within the TTL are dropped, the map stays bounded', () => {
  let now = 0
  const d = createDedupe({ max: 2, ttlMs: 1000, now: () => now })
  expect([d.firstTime('a'), d.firstTime('a'), d.firstTime('b')]).toEqual([true, false, true])
  now = 1000
  expect(d.firstTime('a')).toBe(true) // expired
  d.firstTime('c')
  d.firstTime('d')
  expect(d.size).toBe(2)
  // `size` counts only ids still within the TTL.
  now = 2500
  expect(d.size).toBe(0)
  expect(d.firstTime('c')).toBe(true)
  expect(d.size).toBe(1)
})

let failDownstream = false
let slowDownstreamMs = 0
const refreshed: string[] = []
const server = startExampleReceiver({
  secret: 's3cret',
  async refresh(e) {
    await Bun.sleep(slowDownstreamMs)
    if (failDownstream) throw new Error('cdn down')
    refreshed.push(...Object.values(e.urls))
  },
})
afterAll(() => server.stop(true))

test('example receiver: 401 on a bad signature, 502 when downstream fails, dedupes deliveries', async () => {
  const body = JSON.stringify({ eventType: 'content.published', urls: { en: '/a' }, previousUrls: [], scope: 'document' })
  const post = (signature: string, id = 'e1') => fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body, headers: { 'x-service-signature': signature, 'x-service-delivery': id } })
  expect((await post(sign(body, 'wrong'))).status).toBe(401)
  failDownstream = true
  expect((await post(sign(body, 's3cret'))).status).toBe(502)
  failDownstream = false
  expect((await post(sign(body, 's3cret'))).status).toBe(200)
  expect((await post(sign(body, 's3cret'))).status).toBe(200)
  expect(refreshed).toEqual(['/a'])
})

test('example receiver: a retry arriving while the first attempt is still handled gets its outcome, never a blind "duplicate"', async () => {
  const body = JSON.stringify({ eventType: 'content.published', urls: { en: '/slow' }, previousUrls: [], scope: 'document' })
  const post = () => fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body, headers: { 'x-service-signature': sign(body, 's3cret'), 'x-service-delivery': 'e-slow' } })
  failDownstream = true
  slowDownstreamMs = 300
  try {
    const first = post()
    await Bun.sleep(50) // the sender timed out and retries while the refresh still runs
    const retry = await post()
    expect({ first: (await first).status, retry: retry.status }).toEqual({ first: 502, retry: 502 })
    // The failure is forgotten, so a later retry is handled again (and now succeeds).
    failDownstream = false
    expect(await (await post()).text()).toBe('ok')
  } finally {
    failDownstream = false
    slowDownstreamMs = 0
  }
})

test('verifySignature takes every raw body form (ArrayBuffer too) and throws on misuse: an empty secret, a parsed body', () => {
  const body = '{"v":2,"title":"Über"}'
  const header = sign(body, 'secret')
  const bytes = new TextEncoder().encode(body)
  expect([
    verifySignature(bytes.buffer, header, 'secret'), // await req.arrayBuffer() as it comes
    verifySignature(Buffer.from(body), header, 'secret'),
    verifySignature(new DataView(bytes.buffer), header, 'secret'),
    verifySignature(new Uint8Array([0, ...bytes]).subarray(1), header, 'secret'), // a view at an offset
    verifySignature(bytes, header, new TextEncoder().encode('secret')),
    // An ArrayBuffer of another realm (a VM context), which `instanceof ArrayBuffer` does not recognize.
    verifySignature(runInNewContext(`new Uint8Array(${JSON.stringify([...bytes])}).buffer`), header, 'secret'),
  ]).toEqual([true, true, true, true, true, true])
  // An unset WEBHOOK_SECRET must not make the empty key's signature valid.
  expect(() => verifySignature(body, sign(body, ''), '')).toThrow(new TypeError('verifySignature: the secret is empty or not a string; set it to the secret shown when the webhook was created'))
  expect(() => verifySignature(body, header, undefined as unknown as string)).toThrow(TypeError)
  // express.json() hands over an object: re-serializing it is not the signed bytes.
  expect(() => verifySignature(JSON.parse(body), header, 'secret')).toThrow('pass the raw body (string, bytes or ArrayBuffer) as received, not a parsed object')
})

test('createDedupe refuses options that would hang it or turn it off', () => {
  for (const opts of [{ max: -1 }, { max: 0 }, { max: NaN }, { max: 1.5 }, { ttlMs: 0 }, { ttlMs: -5 }, { ttlMs: NaN }, { ttlMs: Infinity }]) {
    expect(() => createDedupe(opts)).toThrow(RangeError)
  }
  expect(() => createDedupe({ max: Number(undefined) })).toThrow('createDedupe: max must be a positive whole number; got NaN')
})

test('dedupe.run handles a delivery once; a repeat while it runs shares its outcome; a failure is forgotten for the retry', async () => {
  const d = createDedupe()
  const calls: string[] = []
  expect(await d.run('a', () => void calls.push('a'))).toBe('handled')
  expect(await d.run('a', () => void calls.push('a again'))).toBe('duplicate')
  // Two at once, the handling fails: both see the failure, the handler ran once.
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const first = d.run('b', async () => { calls.push('b'); await gate; throw new Error('cdn down') })
  const second = d.run('b', () => void calls.push('b twice'))
  release()
  expect(await Promise.allSettled([first, second])).toEqual([
    { status: 'rejected', reason: new Error('cdn down') }, { status: 'rejected', reason: new Error('cdn down') },
  ])
  // Forgotten: the next retry runs the handler again.
  expect(await d.run('b', () => void calls.push('b retried'))).toBe('handled')
  expect(calls).toEqual(['a', 'b', 'b retried'])
})

test('example receiver: a signed request without X-Service-Delivery or with a body that is not JSON is a final 400, never handled', async () => {
  const post = (body: string, headers: Record<string, string>) => fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body, headers: { 'x-service-signature': sign(body, 's3cret'), ...headers } })
  const event = JSON.stringify({ eventType: 'content.published', urls: { en: '/no-id' }, previousUrls: [], scope: 'document' })
  const noId = await post(event, {})
  const notJson = await post('not json', { 'x-service-delivery': 'e-not-json' })
  expect([noId.status, await noId.text(), notJson.status, await notJson.text()]).toEqual([400, 'missing X-Service-Delivery', 400, 'body is not JSON'])
  expect(refreshed).not.toContain('/no-id')
})

test('example receiver: signed JSON that is no event (null, an array, a number) is a final 400, not a 502 retried three times', async () => {
  const post = (body: string, id: string) => fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body, headers: { 'x-service-signature': sign(body, 's3cret'), 'x-service-delivery': id } })
  for (const [i, body] of ['null', '[1]', '42', '{"urls":{}}'].entries()) {
    const res = await post(body, `e-not-event-${i}`)
    expect({ body, status: res.status, text: await res.text() }).toEqual({ body, status: 400, text: 'body is not an event' })
  }
})

test('example receiver: a body over 16 MiB is refused before it is read whole (413), one under is read', async () => {
  const url = `http://127.0.0.1:${server.port}/`
  // Declared over the limit, a few bytes sent, then nothing: the answer comes without the rest.
  const early = await new Promise<string>((resolve, reject) => {
    const socket = connect(server.port!, '127.0.0.1', () => {
      socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${MAX_EVENT_BYTES + 1}\r\nX-Service-Signature: sha256=${'0'.repeat(64)}\r\n\r\n{"v":2`)
    })
    let text = ''
    socket.on('data', (d) => { text += d; if (text.includes('\r\n')) { socket.destroy(); resolve(text) } })
    socket.on('error', reject)
    setTimeout(() => { socket.destroy(); reject(new Error('no answer while the body was incomplete')) }, 2000)
  })
  expect(early.split('\r\n')[0]).toStartWith('HTTP/1.1 413 ')
  const big = await fetch(url, { method: 'POST', body: new Uint8Array(MAX_EVENT_BYTES + 1), headers: { 'x-service-signature': 'sha256=' + '0'.repeat(64) } })
  expect(big.status).toBe(413)
  const fits = await fetch(url, { method: 'POST', body: new Uint8Array(MAX_EVENT_BYTES), headers: { 'x-service-signature': 'sha256=' + '0'.repeat(64) } })
  expect(fits.status).toBe(401)
})

test('verifySignature: a signature header sent twice (node:http gives an array of two) is false, never a throw; an array of one is that header', () => {
  const body = '{"v":2}'
  const header = sign(body, 'secret')
  expect(verifySignature(body, [header, header], 'secret')).toBe(false)
  expect(verifySignature(body, [], 'secret')).toBe(false)
  // req.headersDistinct gives every header as an array: one header sent once verifies.
  expect(verifySignature(body, [header], 'secret')).toBe(true)
  expect(verifySignature(body, [sign(body, 'other')], 'secret')).toBe(false)
  expect(verifySignature(body, header, 'secret')).toBe(true)
})

test('content-type changes the site cannot see are not site changes', () => {
  const type = { name: 'page', collection: 'pages', urls: true, fields: [{ name: 'title', localizable: true }] }
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['label, icon, hint, description', { ...type, label: 'Pages', icon: 'doc', hint: 'h', description: 'd' }, false],
    ['search and filter fields', { ...type, searchFields: ['title'], filterFields: ['title'], fields: [{ name: 'title', localizable: true, searchable: true, filterable: true, label: 'Title' }] }, false],
    // docs/api/teams-and-settings.md#what-counts-as-a-site-change: `search*` and `filter*`, whatever follows, on the type and on each field.
    ['any search*/filter* key', { ...type, searchWeight: 3, filterOptions: { a: 1 }, fields: [{ name: 'title', localizable: true, searchBoost: 2, FilterGroup: 'x' }] }, false],
    ['a new field', { ...type, fields: [...type.fields, { name: 'body' }] }, true],
    ['urls switched off', { ...type, urls: false }, true],
    ['a field made localizable', { ...type, fields: [{ name: 'title', localizable: false }] }, true],
    // Editor-only keys are the type's and each field's own: deeper, a label or title is content.
    ['a select option\'s label', { ...type, fields: [{ name: 'title', localizable: true, options: [{ value: 'r', label: 'Red' }] }] }, true],
    ['a default text', { ...type, fields: [{ name: 'title', localizable: true, default: { title: 'Buy now', description: 'Order today' } }] }, true],
    ['keys in another order, at any depth', { fields: [{ localizable: true, name: 'title' }], urls: true, collection: 'pages', name: 'page' }, false],
  ]
  for (const [name, after, expected] of cases) expect({ name, visible: isSiteVisibleChange(type, after) }).toEqual({ name, visible: expected })
  expect(isSiteVisibleChange(null, type)).toBe(true)
  const options = (label: string) => ({ ...type, fields: [{ name: 'color', options: [{ value: 'r', label }], default: { text: 'x' } }] })
  expect(isSiteVisibleChange(options('Red'), options('Rot'))).toBe(true)
  expect(isSiteVisibleChange({ ...type, nested: { b: 1, a: [{ d: 1, c: 2 }] } }, { ...type, nested: { a: [{ c: 2, d: 1 }], b: 1 } })).toBe(false)
})
