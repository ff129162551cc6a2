import { expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { jsonOnly } from '../../../api/http/json-only'
import { errorMapping } from '../../../api/http/error-mapping'
import { createLogger } from '../../../core/log'

const app = new Elysia()
  .use(jsonOnly())
  .use(errorMapping(createLogger('silent', 'test'), () => []))
  .post('/x', ({ body }) => ({ got: body }))
const send = (body: RequestInit['body'], headers: Record<string, string>) => app.handle(new Request('http://localhost/x', { method: 'POST', body, headers }))
const answer = async (res: Response) => ({ status: res.status, body: await res.json() })

const NOT_JSON = { error: 'unsupported_media_type', message: 'Send the body as UTF-8 JSON with `Content-Type: application/json`.' }

test('a body that is not UTF-8 JSON by its media type is 415 unsupported_media_type', async () => {
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1']) {
    expect({ type, ...(await answer(await send('{"a":1}', { 'content-type': type }))) }).toEqual({ type, status: 415, body: NOT_JSON })
  }
  // No media type at all says nothing about the body: refused too.
  expect(await answer(await send(new Blob(['{"a":1}']), {}))).toEqual({ status: 415, body: NOT_JSON })
})

test('a Content-Encoding other than identity is 415, before any decoding', async () => {
  const res = await send('{"a":1}', { 'content-type': 'application/json', 'content-encoding': 'gzip' })
  expect(await answer(res)).toEqual({ status: 415, body: { error: 'unsupported_media_type', message: 'Content-Encoding is not supported: send the body uncompressed.' } })
  expect(await answer(await send('{"a":1}', { 'content-type': 'application/json', 'content-encoding': ' Identity ' }))).toEqual({ status: 200, body: { got: { a: 1 } } })
})

test('any spelling of a JSON media type is read as strict UTF-8 JSON', async () => {
  for (const type of ['application/json', 'APPLICATION/JSON; charset=UTF-8', 'application/vnd.acme+json', 'application/json-patch+json']) {
    expect({ type, ...(await answer(await send('{"a":"ü"}', { 'content-type': type }))) }).toEqual({ type, status: 200, body: { got: { a: 'ü' } } })
  }
  const bad = await send(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), { 'content-type': 'application/json' })
  expect({ status: bad.status, error: ((await bad.json()) as { error: string }).error }).toEqual({ status: 400, error: 'malformed_json' })
  expect(await answer(await send('{"a":', { 'content-type': 'application/json' }))).toEqual({ status: 400, body: { error: 'malformed_json', message: 'The request body is not valid JSON.' } })
})

test('a body nested deeper than the limit is refused before any route code walks it', async () => {
  const res = await send('['.repeat(5000) + ']'.repeat(5000), { 'content-type': 'application/json' })
  expect({ status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({ status: 400, error: 'invalid_body' })
})
