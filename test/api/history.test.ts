/** `GET /content/history/{activeTeam}` (contract.md): draft, scheduled, active snapshots, first version page. */
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM, TOKENS, type TestContext } from '../helpers'
import { DRAFT, ID, ok, publishedTwice, put } from '../core/restore/fixtures'

let ctx: TestContext
beforeEach(async () => { ctx = await createTestContext() })
afterEach(() => ctx.close())

const history = (id: string) => ctx.call('GET', `/content/history/${TEAM}?id=${enc(id)}`)

test('a published document without siblings: no draft, no schedule, no snapshots, its versions', async () => {
  await publishedTwice(ctx)
  const versions = await ok(ctx.call('GET', `/content/versions/${TEAM}?id=${ID}`))
  expect(await ok(history(ID))).toEqual({ id: ID, draft: null, scheduled: null, snapshots: [], versions })
  expect(versions.rows.map((r: any) => r.locales)).toEqual([['en', 'de', 'fr'], ['en', 'de']])
})

test('the full timeline: draft, scheduled, active snapshots newest first (revoked left out), versions', async () => {
  await publishedTwice(ctx)
  const draft = await put(ctx, DRAFT)
  const publishAt = new Date(Date.now() + 3_600_000).toISOString()
  await ok(ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: ID, publishAt } }), 201)
  const snap = (name: string) => ok(ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID, name } }), 201)
  const first = await snap('first')
  await Bun.sleep(2)
  const revoked = await snap('revoked')
  await Bun.sleep(2)
  const third = await snap('third')
  await ok(ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: revoked.id } }))

  const body = await ok(history(ID))
  const versions = await ok(ctx.call('GET', `/content/versions/${TEAM}?id=${ID}`))
  expect(body).toEqual({
    id: ID,
    draft: { id: `${ID}/draft`, updatedAt: draft['@metadata']['@last-modified'], locales: ['en', 'de'], dirtyLocales: ['en', 'fr'] },
    scheduled: { id: `${ID}/scheduled`, publishAt, scheduledBy: 'u-editor', locales: ['en', 'de'] },
    snapshots: [
      { ...third, locales: ['en', 'de'] },
      { ...first, locales: ['en', 'de'] },
    ],
    versions,
  })
})

test('a document that so far only has a draft', async () => {
  await put(ctx, { ...DRAFT, id: 'pages/new/draft' })
  const body = await ok(history('pages/new'))
  expect(body).toMatchObject({ id: 'pages/new', scheduled: null, snapshots: [], versions: { rows: [], hasMore: false, nextStart: 0 } })
  expect(body.draft.locales).toEqual(['en', 'de'])
})

test('versions are the first page only, with hasMore and nextStart to page on', async () => {
  await put(ctx, { ...DRAFT, id: ID })
  for (let i = 0; i < 27; i++) await ok(ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [ID] } }))
  const body = await ok(history(ID))
  expect(body.versions.rows).toHaveLength(25)
  expect(body.versions).toMatchObject({ hasMore: true, nextStart: 25 })
})

test('errors: missing_id, sibling_id, not_content (an activity id, as the version list), not_found, auth', async () => {
  await publishedTwice(ctx)
  await put(ctx, DRAFT)
  const refused = async (res: Promise<{ status: number; body: any }>, error: string) => {
    const { status, body } = await res
    expect({ status, body }).toEqual({ status: 400, body: { error, message: expect.any(String) } })
  }
  await refused(ctx.call('GET', `/content/history/${TEAM}`), 'missing_id')
  await refused(history(`${ID}/draft`), 'sibling_id')
  await refused(history(`${ID}/scheduled`), 'sibling_id')
  await refused(history(`${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA`), 'sibling_id')
  // The draft write logged an EDIT entry: the activity document exists and is no content.
  await refused(history(`${ID}/activity`), 'not_content')
  expect((await history('pages/nope/activity')).body).toEqual({ error: 'not_found', message: 'Document not found.' })
  const notFound = await history('pages/nope')
  expect({ status: notFound.status, body: notFound.body }).toEqual({ status: 404, body: { error: 'not_found', message: 'Document not found.' } })
  expect((await ctx.call('GET', `/content/history/${TEAM}?id=${ID}`, { token: null })).status).toBe(401)
  expect((await ctx.call('GET', `/content/history/${TEAM}?id=${ID}`, { token: TOKENS.outsider })).status).toBe(403)
})

test('a soft-deleted canonical with a draft written since: the draft, and no versions, as GET /content/versions refuses them', async () => {
  await publishedTwice(ctx)
  expect(await ok(ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: [ID] } }))).toEqual([{ id: ID, status: 0 }])
  // Nothing of the document remains: 404 like the version list.
  expect((await history(ID)).body).toEqual({ error: 'not_found', message: 'Document not found.' })
  const draft = await put(ctx, DRAFT)
  expect(await ok(history(ID))).toEqual({
    id: ID,
    draft: { id: `${ID}/draft`, updatedAt: draft['@metadata']['@last-modified'], locales: ['en', 'de'], dirtyLocales: ['de', 'en'] },
    scheduled: null,
    snapshots: [],
    versions: { rows: [], hasMore: false, nextStart: 0 },
  })
  expect((await ctx.call('GET', `/content/versions/${TEAM}?id=${ID}`)).body).toEqual({ error: 'not_found', message: 'Document not found.' })
})
