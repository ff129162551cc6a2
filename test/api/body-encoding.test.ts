/**
 * Request bodies are UTF-8 JSON, read strictly: bytes that are not UTF-8, another declared
 * charset, a content coding, or a number JSON can only read as Infinity are refused and write
 * nothing. Lossy decoding had turned `\xff` into U+FFFD, so one id overwrote another.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createApp } from '../../api/app'
import { loadConfig } from '../../core/config'
import { createLogger } from '../../core/log'
import { createMetrics } from '../../core/metrics'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(() => ctx.close())

const send = async (path: string, body: Uint8Array | string, headers: Record<string, string> = {}) => {
  const res = await ctx.app.handle(new Request(`http://localhost${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'application/json', ...headers }, body,
  }))
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any }
}
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))))
const err = (code: string, message: unknown = expect.any(String)) => ({ error: code, message })

test('a body that is not UTF-8 is 400 malformed_json and cannot overwrite the document whose id has U+FFFD', async () => {
  const real = await send(`/content/${TEAM}`, JSON.stringify({ id: 'pages/\ufffd', contentType: 'page', fields: {}, locales: { en: { title: 'REAL' } } }))
  expect(real.status).toBe(200)
  const forged = bytes('{"id":"pages/', [0xff], '","contentType":"page","fields":{},"locales":{"en":{"title":"forged"}}}')
  const res = await send(`/content/${TEAM}`, forged)
  expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: err('malformed_json', 'The request body is not valid UTF-8.') })
  const stored = await ctx.call('GET', `/content/${TEAM}?id=${encodeURIComponent('pages/\ufffd')}`)
  expect(stored.body.locales.en.title).toBe('REAL')
  // A truncated multi-byte sequence, an overlong encoding and an encoded surrogate are refused alike.
  for (const bad of [[0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
    const r = await send(`/content/${TEAM}`, bytes('{"id":"pages/x', bad, '","contentType":"page"}'))
    expect({ bad, status: r.status, error: r.body.error }).toEqual({ bad, status: 400, error: 'malformed_json' })
  }
  expect((await ctx.call('GET', `/content/${TEAM}?id=pages/x`)).status).toBe(404)
})

test('restore and snapshot bodies are decoded strictly too', async () => {
  const restore = await send(`/content/apply-version/${TEAM}`, bytes('{"kind":"revision","documentId":"pages/home","version":"', [0xff], '"}'))
  expect({ status: restore.status, body: restore.body }).toEqual({ status: 400, body: err('malformed_json', 'The request body is not valid UTF-8.') })
  const snapshot = await send(`/content/snapshots/${TEAM}`, bytes('{"documentId":"pages/home","name":"', [0xff, 0xfe], '"}'))
  expect({ status: snapshot.status, error: snapshot.body.error }).toEqual({ status: 400, error: 'malformed_json' })
})

test('well-formed UTF-8 is read as it is, a leading byte order mark included', async () => {
  const res = await send(`/content/${TEAM}`, bytes([0xef, 0xbb, 0xbf], JSON.stringify({ id: 'pages/über', contentType: 'page', fields: {}, locales: { en: { title: 'Über 🚀' } } })))
  expect(res.status).toBe(200)
  expect((await ctx.call('GET', `/content/${TEAM}?id=${encodeURIComponent('pages/über')}`)).body.locales.en.title).toBe('Über 🚀')
})

test('a charset other than UTF-8 is 415; utf-8 in any spelling is fine', async () => {
  const body = JSON.stringify({ id: 'pages/latin', contentType: 'page' })
  for (const type of ['application/json; charset=iso-8859-1', 'application/json;charset=UTF-16']) {
    const res = await send(`/content/${TEAM}`, body, { 'content-type': type })
    expect({ type, status: res.status, body: res.body }).toEqual({ type, status: 415, body: err('unsupported_media_type') })
  }
  expect((await ctx.call('GET', `/content/${TEAM}?id=pages/latin`)).status).toBe(404)
  for (const type of ['application/json; charset="utf-8"', 'application/json; charset=UTF8']) {
    expect((await send(`/content/${TEAM}`, body, { 'content-type': type })).status).toBe(200)
  }
})

test('a body with a Content-Encoding is 415 (compressed or not), identity is fine', async () => {
  const body = JSON.stringify({ id: 'pages/zipped', contentType: 'page' })
  const gzip = await send(`/content/${TEAM}`, Bun.gzipSync(Buffer.from(body)), { 'content-encoding': 'gzip' })
  expect({ status: gzip.status, body: gzip.body }).toEqual({ status: 415, body: err('unsupported_media_type', 'Content-Encoding is not supported: send the body uncompressed.') })
  const labelled = await send(`/content/${TEAM}`, body, { 'content-encoding': 'br' })
  expect(labelled.status).toBe(415)
  expect((await ctx.call('GET', `/content/${TEAM}?id=pages/zipped`)).status).toBe(404)
  expect((await send(`/content/${TEAM}`, body, { 'content-encoding': 'identity' })).status).toBe(200)
})

test('a number that overflows to Infinity is 400 invalid_body, not stored as null', async () => {
  const res = await send(`/content/${TEAM}`, '{"id":"pages/big","contentType":"page","fields":{"sku":1e400}}')
  expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: err('invalid_body', 'The body holds a number too large to store (it overflows to Infinity).') })
  expect((await ctx.call('GET', `/content/${TEAM}?id=pages/big`)).status).toBe(404)
  const nested = await send(`/content/${TEAM}`, '{"id":"pages/big","contentType":"page","fields":{"a":[{"b":-1e999}]}}')
  expect(nested.body.error).toBe('invalid_body')
  expect((await send(`/content/${TEAM}`, '{"id":"pages/big","contentType":"page","fields":{"sku":1e300}}')).status).toBe(200)
})

test('a chunked body whose sender goes away mid-way is a 400, not an error log line', async () => {
  const errors: unknown[] = []
  const log = Object.assign(createLogger('silent', 'test'), { error: (o: unknown) => void errors.push(o) })
  const app = createApp({ db: ctx.db, config: loadConfig({}), log: log as never, metrics: createMetrics() })
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode('{"id":"pages/cut","contentType":'))
      c.error(new DOMException('The client went away', 'AbortError'))
    },
  })
  const res = await app.handle(new Request(`http://localhost/content/${TEAM}`, {
    method: 'POST', headers: { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'application/json' }, body, duplex: 'half',
  } as RequestInit))
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: err('malformed_json', 'The request body could not be read to its end.') })
  expect(errors).toEqual([])
  expect((await ctx.call('GET', `/content/${TEAM}?id=pages/cut`)).status).toBe(404)
})
