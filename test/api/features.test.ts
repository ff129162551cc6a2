/**
 * The editor app's API: the team's UI feature flags (contract.md "Team settings"), `GET /me`,
 * the demo tokens of the sign-in page, and "Share" on a version row (a snapshot of a Published
 * Version). The flags change only the app's History drawer: no endpoint answers differently.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'
import { seed } from '../../cli/seed'
import demo from '../../db/seed/demo.json'

let ctx: TestContext
const ID = 'pages/flags'

beforeAll(async () => {
  ctx = await createTestContext()
  const doc = { id: ID, contentType: 'page', fields: { parent: null }, locales: { en: { title: 'One', slug: 'flags' } } }
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
  expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [ID] } })).status).toBe(200)
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: { ...doc, id: `${ID}/draft`, locales: { en: { title: 'Two', slug: 'flags' }, de: { title: 'Zwei', slug: 'flags' } } } })).status).toBe(200)
})
afterAll(() => ctx.close())

test('both flags are on by default, and every member reads them', async () => {
  for (const token of [TOKENS.editor, TOKENS.translator, TOKENS.webhooks]) {
    const res = await ctx.call('GET', `/teams/${TEAM}/features`, { token })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ history: true, snapshots: true })
  }
})

test('PUT sets both flags (ManageTeam); a member without it gets 403, a non-member 403, no token 401', async () => {
  expect((await ctx.call('PUT', `/teams/${TEAM}/features`, { token: TOKENS.translator, body: { history: false, snapshots: false } })).body)
    .toEqual({ error: 'forbidden', message: 'Missing capability: ManageTeam.' })
  expect((await ctx.call('PUT', `/teams/${TEAM}/features`, { token: TOKENS.outsider, body: { history: false, snapshots: false } })).body.error).toBe('forbidden')
  expect((await ctx.call('GET', `/teams/${TEAM}/features`, { token: TOKENS.outsider })).status).toBe(403)
  expect((await ctx.call('GET', `/teams/${TEAM}/features`, { token: null })).status).toBe(401)
  const set = await ctx.call('PUT', `/teams/${TEAM}/features`, { body: { history: true, snapshots: false } })
  expect(set.status).toBe(200)
  expect(set.body).toEqual({ history: true, snapshots: false })
  expect((await ctx.call('GET', `/teams/${TEAM}/features`, { token: TOKENS.translator })).body).toEqual({ history: true, snapshots: false })
  await ctx.call('PUT', `/teams/${TEAM}/features`, { body: { history: true, snapshots: true } })
})

test('a features body must name both flags as booleans: 400 invalid_body', async () => {
  for (const body of [{ history: true }, { history: 'yes', snapshots: true }, { history: true, snapshots: true, extra: 1 }]) {
    const res = await ctx.call('PUT', `/teams/${TEAM}/features`, { body })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('invalid_body')
  }
})

test('no flag combination changes any endpoint answer', async () => {
  const reads = async () => {
    const answers: unknown[] = []
    const paths = [
      `/content/${TEAM}?id=${ID}`, `/content/${TEAM}?id=${ID}/draft`, `/content/list/${TEAM}`, `/content/history/${TEAM}?id=${ID}`,
      `/content/versions/${TEAM}?id=${ID}`, `/teams/${TEAM}/locales`, `/teams/${TEAM}/content-types`, `/content/snapshots/${TEAM}?documentId=pages/home`,
    ]
    for (const path of paths) {
      const res = await ctx.call('GET', path, { token: TOKENS.translator })
      answers.push([path, res.status, res.body])
    }
    const version = (await ctx.call('GET', `/content/versions/${TEAM}?id=${ID}`)).body.rows[0].version
    answers.push((await ctx.call('GET', `/content/version/${TEAM}?id=${ID}&version=${version}`)).body)
    // A write whose answer holds no timestamp: the translator's restore into a published document is refused the same way.
    const restore = await ctx.call('POST', `/content/apply-version/${TEAM}`, { token: TOKENS.translator, body: { kind: 'revision', documentId: ID, version, locales: ['de'] } })
    answers.push([restore.status, restore.body])
    // A snapshot is created under every combination (its answer differs only in id and time).
    const snap = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID, name: 'n' } })
    answers.push([snap.status, snap.body.status, snap.body.name])
    await ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: snap.body.id } })
    return answers
  }
  const baseline = await reads()
  expect((baseline[2] as unknown[])[1]).toBe(200)
  for (const flags of [{ history: false, snapshots: true }, { history: true, snapshots: false }, { history: false, snapshots: false }, { history: true, snapshots: true }]) {
    expect((await ctx.call('PUT', `/teams/${TEAM}/features`, { body: flags })).status).toBe(200)
    expect(await reads()).toEqual(baseline)
  }
})

test('GET /me names the user, their teams, capabilities, locales and flags; 401 without a token', async () => {
  const me = await ctx.call('GET', '/me', { token: TOKENS.translator })
  expect(me.status).toBe(200)
  expect(me.body).toEqual({
    userId: 'u-translator',
    teams: [{ id: TEAM, capabilities: ['EditContent'], locales: ['en', 'de', 'fr'], defaultLocale: 'en', features: { history: true, snapshots: true } }],
  })
  const none = await ctx.call('GET', '/me', { token: null })
  expect(none.status).toBe(401)
  expect(none.body.error).toBe('unauthorized')
})

test('"Share" on a version row: a snapshot of that Published Version, not of the draft', async () => {
  const version = (await ctx.call('GET', `/content/versions/${TEAM}?id=${ID}`)).body.rows[0].version
  const created = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID, version, name: 'shared' } })
  expect(created.status).toBe(201)
  expect(created.body.status).toBe('active')
  const body = (await ctx.call('GET', `/content/${TEAM}?id=${encodeURIComponent(created.body.id)}`)).body
  expect(body.locales).toEqual({ en: { title: 'One', slug: 'flags' } })
  expect(body.__publishedAt).toBeUndefined()
  const unknown = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/home', version } })
  expect(unknown.status).toBe(404)
  expect(unknown.body.error).toBe('not_found')
  const malformed = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID, version: '!!' } })
  expect(malformed.status).toBe(400)
  expect(malformed.body.error).toBe('bad_reference')
})

test('the sign-in page names the demo tokens only while they sign in on this database', async () => {
  const none = await ctx.call('GET', '/app/demo-tokens', { token: null })
  expect(none.status).toBe(200)
  expect(none.body).toEqual([])
  await seed(ctx.db, ctx.metrics, demo)
  const listed = (await ctx.call('GET', '/app/demo-tokens', { token: null })).body
  expect(listed.map((u: { token: string }) => u.token)).toEqual(demo.teams[0]!.users.map((u) => u.token))
  for (const u of listed) expect((await ctx.call('GET', '/me', { token: u.token })).status).toBe(200)
})
