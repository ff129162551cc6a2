import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

const routes: [string, string, unknown?][] = [
  ['GET', `/content/${TEAM}?id=pages/home`],
  ['GET', `/content/versions/${TEAM}?id=pages/home`],
  ['GET', `/content/version/${TEAM}?id=pages/home&version=QQ`],
  ['POST', `/content/${TEAM}`, { id: 'pages/x', contentType: 'page' }],
  ['POST', `/content/publish/${TEAM}`, { ids: ['pages/home'] }],
]

describe('bearer tokens', () => {
  for (const [method, url, body] of routes) {
    test(`${method} ${url.split('?')[0]} without a token is 401`, async () => {
      const res = await ctx.call(method, url, { token: null, body })
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) })
    })
    test(`${method} ${url.split('?')[0]} with an unknown token is 401`, async () => {
      const res = await ctx.call(method, url, { token: 'not-a-token', body })
      expect(res.status).toBe(401)
      expect(res.body.error).toBe('unauthorized')
    })
    test(`${method} ${url.split('?')[0]} for a team the caller is not in is 403`, async () => {
      const res = await ctx.call(method, url, { token: TOKENS.outsider, body })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ error: 'forbidden', message: expect.any(String) })
    })
  }

  test('a malformed Authorization header is 401', async () => {
    const res = await ctx.call('GET', `/content/${TEAM}?id=pages/home`, { token: null, headers: { authorization: 'Basic abc' } })
    expect(res.status).toBe(401)
  })

  test('the team comes from the route, never from the caller: the outsider reads its own team only', async () => {
    expect((await ctx.call('GET', `/content/versions/other?id=pages/home`, { token: TOKENS.outsider })).status).toBe(404)
    expect((await ctx.call('GET', `/content/versions/other?id=pages/home`, { token: TOKENS.editor })).status).toBe(403)
  })
})

describe('capabilities', () => {
  test('EditContent is required for the version endpoints', async () => {
    const res = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/home`, { token: TOKENS.webhooks })
    expect(res.status).toBe(403)
    expect(res.body.error).toBe('forbidden')
  })

  test('publishing needs ChangeLiveContent; a translator can still list versions', async () => {
    const publish = await ctx.call('POST', `/content/publish/${TEAM}`, { token: TOKENS.translator, body: { ids: ['pages/home'] } })
    expect(publish.status).toBe(403)
    expect(publish.body.error).toBe('forbidden')
    const list = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/home`, { token: TOKENS.translator })
    expect(list.status).toBe(200)
  })
})
