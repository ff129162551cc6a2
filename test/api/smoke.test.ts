import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

test('health answers without auth', async () => {
  const res = await ctx.call('GET', '/health', { token: null })
  expect(res).toMatchObject({ status: 200, body: { status: 'ok' } })
})

test('/metrics needs a valid bearer token (any user), unless METRICS_PUBLIC=true', async () => {
  for (const token of [null, 'tok-unknown']) {
    const res = await ctx.call('GET', '/metrics', { token })
    expect({ token, status: res.status, body: res.body }).toEqual({ token, status: 401, body: { error: 'unauthorized', message: expect.any(String) } })
  }
  const member = await ctx.call('GET', '/metrics', { token: TOKENS.outsider })
  expect(member.status).toBe(200)
  expect(member.text).toContain('service_api_publish_revisions')
  const open = await createTestContext({ env: { METRICS_PUBLIC: 'true' } })
  try {
    const res = await open.call('GET', '/metrics', { token: null })
    expect(res.status).toBe(200)
    expect(res.text).toContain('service_api_publish_revisions')
    // Only /metrics opens: everything else still wants a token.
    expect((await open.call('GET', `/content/versions/${TEAM}?id=pages/home`, { token: null })).status).toBe(401)
  } finally {
    open.close()
  }
})

test('the API description needs no token (browsers and client generators fetch it without one)', async () => {
  expect((await ctx.call('GET', '/swagger/json', { token: null })).status).toBe(200)
})

test('seeded published page has one version', async () => {
  const res = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/home`)
  expect(res.status).toBe(200)
  expect(res.body.rows).toHaveLength(1)
})
