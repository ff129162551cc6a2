/**
 * The body limit through a real socket (`serveApp`, as api/main.ts serves), as clients meet it: `app.handle` tests
 * never reach Bun's own request-size check, which answers before any of our code runs.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'
import { serveApp } from '../../api/app'

let ctx: TestContext
let server: ReturnType<typeof serveApp>
let base: string
const LIMIT = 64 * 1024

beforeAll(async () => {
  ctx = await createTestContext({ env: { MAX_BODY_BYTES: String(LIMIT) } })
  server = serveApp(ctx.app, { hostname: '127.0.0.1', port: 0, maxBodyBytes: LIMIT, webhookTimeoutMs: 30_000 })
  base = `http://127.0.0.1:${server.port}`
})
afterAll(async () => {
  await server.stop()
  await ctx.close()
})

const doc = (title: string) => JSON.stringify({ id: 'pages/big', contentType: 'page', fields: {}, locales: { en: { title } } })
const headers = { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'application/json' }

/** A body sent in chunks without a declared length (Transfer-Encoding: chunked). */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let at = 0
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close()
      c.enqueue(bytes.subarray(at, (at += 16 * 1024)))
    },
  })
}

const stored = async () => (await fetch(`${base}/content/${TEAM}?id=pages/big`, { headers })).status

for (const [name, size] of [['just over the limit', LIMIT + 1], ['many times the limit', LIMIT * 20]] as const) {
  test(`a declared body ${name} is 413 payload_too_large as JSON, and nothing is stored`, async () => {
    const res = await fetch(`${base}/content/${TEAM}`, { method: 'POST', headers, body: doc('x'.repeat(size)) })
    expect(res.status).toBe(413)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(await res.json()).toEqual({ error: 'payload_too_large', message: expect.any(String) })
    expect(await stored()).toBe(404)
  })
}

test('a chunked body over the limit is 413 payload_too_large as JSON, and nothing is stored', async () => {
  const res = await fetch(`${base}/content/${TEAM}`, { method: 'POST', headers, body: chunked(doc('x'.repeat(LIMIT + 10))) })
  expect(res.status).toBe(413)
  expect(await res.json()).toEqual({ error: 'payload_too_large', message: expect.any(String) })
  expect(await stored()).toBe(404)
})

test('a chunked body within the limit is parsed and stored', async () => {
  const res = await fetch(`${base}/content/${TEAM}`, { method: 'POST', headers, body: chunked(doc('small')) })
  expect(res.status).toBe(200)
  expect(await stored()).toBe(200)
})

test('malformed JSON in chunks is still 400 malformed_json', async () => {
  const res = await fetch(`${base}/content/${TEAM}`, { method: 'POST', headers, body: chunked('{"id": ') })
  expect(res.status).toBe(400)
  expect(await res.json()).toEqual({ error: 'malformed_json', message: expect.any(String) })
})
