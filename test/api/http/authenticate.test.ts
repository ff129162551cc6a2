import { afterAll, expect, test } from 'bun:test'
import { authenticate } from '../../../api/http/authenticate'
import { createLogger } from '../../../core/log'
import { createTestContext, TOKENS } from '../../helpers'

// Through createApp: the plugin reads the seeded tokens of a real database.
const ctx = await createTestContext()
afterAll(() => ctx.close())
const UNAUTHORIZED = { error: 'unauthorized', message: expect.any(String) }

test('a route without a token, or with an unknown one, is 401 with WWW-Authenticate: Bearer', async () => {
  for (const token of [null, 'tok-unknown-00000']) {
    const res = await ctx.call('GET', '/content/list/acme', { token })
    expect({ token, status: res.status, body: res.body, scheme: res.headers.get('www-authenticate') }).toEqual({ token, status: 401, body: UNAUTHORIZED, scheme: 'Bearer' })
  }
})

test('401 comes before the body checks: an anonymous caller learns nothing about bodies', async () => {
  const res = await ctx.call('POST', '/content/acme', { token: null, body: 'a=1', headers: { 'content-type': 'text/plain', 'content-length': '999999999' } })
  expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: UNAUTHORIZED })
  const repeated = await ctx.call('GET', '/content/acme?id=a&id=b', { token: null })
  expect(repeated.status).toBe(401)
})

test('/health, /swagger and its document are public; /metrics is not unless METRICS_PUBLIC', async () => {
  for (const path of ['/health', '/swagger', '/swagger/json']) expect({ path, status: (await ctx.call('GET', path, { token: null })).status }).toEqual({ path, status: 200 })
  expect((await ctx.call('GET', '/metrics', { token: null })).status).toBe(401)
  expect((await ctx.call('GET', '/metrics', { token: TOKENS.editor })).status).toBe(200)
  const open = await createTestContext({ env: { METRICS_PUBLIC: 'true' } })
  try {
    expect((await open.call('GET', '/metrics', { token: null })).status).toBe(200)
  } finally {
    open.close()
  }
})
