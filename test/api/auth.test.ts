import { row } from '../rows'
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

  test('rewriting a published canonical in place needs ChangeLiveContent; its draft and unpublished documents need EditContent only', async () => {
    const hook = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { body: { label: 'site', provider: 'custom', target: 'https://example.com/hook' } })
    expect(hook.status).toBe(201)
    const events = async () => ((await row(ctx.db, 'SELECT count(*) AS n FROM outbox_events')) as { n: number }).n
    const home = (await ctx.call('GET', `/content/${TEAM}?id=pages/home`)).body
    const before = JSON.stringify(home)
    const { '@metadata': _m, __publishedBy: _b, __publishedAt: _a, ...doc } = home
    const live = { ...doc, locales: { en: { title: 'Hijacked', slug: 'start' } } }
    const refused = (message: string) => ({ error: 'forbidden', message: expect.stringContaining(message) })
    const post = await ctx.call('POST', `/content/${TEAM}`, { token: TOKENS.translator, body: live })
    expect({ status: post.status, body: post.body }).toEqual({ status: 403, body: refused('Missing capability: ChangeLiveContent') })
    expect(post.body.message).toContain('"pages/home/draft"')
    const patch = await ctx.call('PATCH', `/content/${TEAM}?id=pages/home`, { token: TOKENS.translator, body: [{ op: 'replace', path: '/locales/en/slug', value: 'start' }] })
    expect({ status: patch.status, body: patch.body }).toEqual({ status: 403, body: refused('Missing capability: ChangeLiveContent') })
    // Nothing changed, and nothing was reported to the site.
    expect(JSON.stringify((await ctx.call('GET', `/content/${TEAM}?id=pages/home`)).body)).toBe(before)
    expect(await events()).toBe(0)

    // The draft of that document, and a canonical that is not live, are EditContent work.
    expect((await ctx.call('PATCH', `/content/${TEAM}?id=pages/home/draft`, { token: TOKENS.translator, body: [{ op: 'replace', path: '/locales/en/title', value: 'Draft' }] })).status).toBe(200)
    expect((await ctx.call('POST', `/content/${TEAM}`, { token: TOKENS.translator, body: { id: 'pages/fresh', contentType: 'page', locales: { en: { title: 'F', slug: 'f' } } } })).status).toBe(200)
    expect((await ctx.call('PATCH', `/content/${TEAM}?id=pages/fresh`, { token: TOKENS.translator, body: [{ op: 'replace', path: '/locales/en/title', value: 'G' }] })).status).toBe(200)
    // An editor with ChangeLiveContent may still rewrite the live canonical.
    expect((await ctx.call('POST', `/content/${TEAM}`, { token: TOKENS.editor, body: live })).status).toBe(200)
    expect(await events()).toBe(1) // the slug change, reported as content.published
  })
})

/**
 * Authorisation comes before body and query validation: a caller who may not use a route learns
 * nothing about its input from a 400 (contract.md "Callers and permissions": 403).
 * Every route of contract.md that takes a body or a validated query, with input it would refuse.
 */
describe('403 before 400', () => {
  const bad = { zz: 1 }
  const guarded: [string, string, unknown, string][] = [
    ['POST', `/content/${TEAM}`, bad, 'EditContent'],
    ['PATCH', `/content/${TEAM}?id=pages/home`, bad, 'EditContent'],
    ['POST', `/content/publish/${TEAM}`, bad, 'ChangeLiveContent'],
    ['POST', `/content/archive/${TEAM}`, bad, 'ChangeLiveContent'],
    ['POST', `/content/copy/${TEAM}`, bad, 'EditContent'],
    ['POST', `/content/schedule/${TEAM}`, bad, 'ChangeLiveContent'],
    ['POST', `/content/snapshots/${TEAM}`, bad, 'EditContent'],
    ['PATCH', `/content/snapshots/${TEAM}?id=x`, bad, 'EditContent'],
    ['POST', `/content/snapshots/revoke/${TEAM}`, bad, 'EditContent'],
    ['POST', `/content/apply-version/${TEAM}`, bad, 'EditContent'],
    ['POST', `/content/apply-snapshot/${TEAM}`, bad, 'EditContent'],
    ['GET', `/content/versions/${TEAM}?id=pages/home&start=-1`, undefined, 'EditContent'],
    ['PUT', `/teams/${TEAM}/locales`, bad, 'ManageTeam'],
    ['PUT', `/teams/${TEAM}/localization`, bad, 'ManageTeam'],
    ['PUT', `/teams/${TEAM}/content-types/page`, bad, 'ManageTeam'],
    ['PUT', `/teams/${TEAM}/content-index`, [], 'ManageTeam'],
    ['POST', `/teams/${TEAM}/webhooks`, bad, 'ManageWebhooks'],
    ['PATCH', `/teams/${TEAM}/webhooks/w1`, bad, 'ManageWebhooks'],
    ['POST', `/teams/${TEAM}/webhooks/w1/test?eventType=nope`, undefined, 'ManageWebhooks'],
    // Routes with a transform of their own (an empty parameter left out) keep the capability check.
    ['GET', `/teams/${TEAM}/webhooks/w1/deliveries?status=&limit=0`, undefined, 'ManageWebhooks'],
  ]
  for (const [method, url, body, capability] of guarded) {
    const route = `${method} ${url.split('?')[0]}`
    test(`${route}: a non-member with a body it would refuse gets 403`, async () => {
      const res = await ctx.call(method, url, { token: TOKENS.outsider, body })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ error: 'forbidden', message: expect.any(String) })
    })
    test(`${route}: a member without ${capability} and a body it would refuse gets 403`, async () => {
      // The translator has EditContent only; the webhooks user has ManageWebhooks only.
      const token = capability === 'EditContent' ? TOKENS.webhooks : TOKENS.translator
      const res = await ctx.call(method, url, { token, body })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ error: 'forbidden', message: expect.stringContaining(capability) })
    })
    test(`${route}: the editor with the same body gets a 4xx about the input, not 403`, async () => {
      const res = await ctx.call(method, url, { token: TOKENS.editor, body })
      expect(res.status).toBeGreaterThanOrEqual(400)
      expect(res.status).not.toBe(403)
      expect(res.status).toBeLessThan(500)
    })
  }
})
