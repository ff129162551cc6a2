/** createApp runs its request checks (api/http/) in one order: each row meets two, and the first answers. */
import { afterAll, expect, test } from 'bun:test'
import { createTestContext, TEAM } from '../helpers'

const ctx = await createTestContext({ env: { MAX_BODY_BYTES: '1024' } })
afterAll(() => ctx.close())

const big = String(10 * 1024)
const ROWS: [string, Parameters<typeof ctx.call>, number, string | null][] = [
  ['redirect before the token', ['GET', '/swagger/', { token: null }], 308, null],
  ['Origin before the token', ['POST', `/mcp/${TEAM}`, { token: null, body: {}, headers: { origin: 'http://evil.example' } }], 403, 'forbidden'],
  ['the token before a repeated query key', ['GET', `/content/${TEAM}?id=a&id=b`, { token: null }], 401, 'unauthorized'],
  ['the token before the media type', ['POST', `/content/${TEAM}`, { token: null, body: 'a=1', headers: { 'content-type': 'text/plain' } }], 401, 'unauthorized'],
  ['a repeated query key before the media type', ['PATCH', `/content/${TEAM}?id=a&id=b`, { body: 'a=1', headers: { 'content-type': 'text/plain' } }], 400, 'invalid_body'],
  ['the media type before the size', ['POST', `/content/${TEAM}`, { body: 'a=1', headers: { 'content-type': 'text/plain', 'content-length': big } }], 415, 'unsupported_media_type'],
  ['the encoding before the size', ['POST', `/content/${TEAM}`, { body: '{}', headers: { 'content-encoding': 'gzip', 'content-length': big } }], 415, 'unsupported_media_type'],
  ['the size before the JSON', ['POST', `/content/${TEAM}`, { body: '{'.repeat(2000) }], 413, 'payload_too_large'],
  ['the JSON before team membership', ['POST', `/content/${TEAM}`, { token: 'tok-outsider-000', body: '{"id":' }], 400, 'malformed_json'],
  ['team membership before the body schema', ['POST', `/content/${TEAM}`, { token: 'tok-outsider-000', body: { nope: 1 } }], 403, 'forbidden'],
]

test.each(ROWS)('%s', async (_, [method, path, opts], status, error) => {
  const res = await ctx.call(method, path, opts)
  expect({ status: res.status, error: res.body?.error ?? null }).toEqual({ status, error })
})
