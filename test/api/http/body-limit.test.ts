import { expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { bodyLimit } from '../../../api/http/body-limit'

const app = new Elysia().use(bodyLimit(10)).post('/x', ({ body }) => ({ got: body }))
const send = (body: RequestInit['body'], headers: Record<string, string> = {}) =>
  app.handle(new Request('http://localhost/x', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }))
const chunked = (...parts: string[]) => new ReadableStream<Uint8Array>({
  start(c) {
    for (const p of parts) c.enqueue(new TextEncoder().encode(p))
    c.close()
  },
})
const TOO_LARGE = { error: 'payload_too_large', message: 'The body exceeds 10 bytes.' }

test('a declared length over the limit is 413 payload_too_large, whatever the body', async () => {
  const res = await send('[1]', { 'content-length': '11' })
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 413, body: TOO_LARGE })
})

test('a body of exactly the limit is read', async () => {
  const res = await send('[1,2,3,45]')
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { got: [1, 2, 3, 45] } })
})

test('a chunked body is counted: over the limit 413, within it read', async () => {
  const over = await send(chunked('[1,2,', '3,4,5]'))
  expect({ status: over.status, body: await over.json() }).toEqual({ status: 413, body: TOO_LARGE })
  const within = await send(chunked('[1,', '2]'))
  expect({ status: within.status, body: await within.json() }).toEqual({ status: 200, body: { got: [1, 2] } })
})

test('a chunked body that breaks off is 400 malformed_json', async () => {
  const broken = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode('[1'))
      c.error(new Error('client went away'))
    },
  })
  const res = await send(broken)
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: { error: 'malformed_json', message: 'The request body could not be read to its end.' } })
})
