/**
 * `GET /content/snapshots/{activeTeam}?documentId=`: every snapshot of a document with its status,
 * which History leaves out once revoked or expired; its errors; and that a listed revoked or
 * expired snapshot is still refused by apply-snapshot (409).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM, TOKENS, type TestContext } from '../helpers'
import { ID, ok, publishedTwice } from '../core/restore/fixtures'

let ctx: TestContext
const list = (query: string, token = TOKENS.editor) => ctx.call('GET', `/content/snapshots/${TEAM}${query}`, { token })
const create = (body: Record<string, unknown>) => ok(ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID, ...body } }), 201)
let kept: any, revoked: any, expired: any

beforeAll(async () => {
  ctx = await createTestContext()
  await publishedTwice(ctx)
  expired = await create({ name: 'short-lived', expiresAt: new Date(Date.now() + 150).toISOString() })
  revoked = await create({ name: 'withdrawn' })
  kept = await create({ name: 'kept' })
  await ok(ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: revoked.id } }))
  await Bun.sleep(200)
})
afterAll(() => ctx.close())

test('every snapshot, newest first, with its status, languages and revocation time; History keeps the active one only', async () => {
  const res = await list(`?documentId=${enc(ID)}`)
  expect(res.status).toBe(200)
  expect(res.body.documentId).toBe(ID)
  const rows = res.body.snapshots as any[]
  expect(rows.map((r) => [r.name, r.status])).toEqual([['kept', 'active'], ['withdrawn', 'revoked'], ['short-lived', 'expired']])
  expect(rows[0]).toEqual({ ...kept, locales: ['en', 'de', 'fr'], revokedAt: null })
  expect(rows[1].revokedAt).toEqual(expect.any(String))
  expect(Date.parse(rows[1].revokedAt)).toBeGreaterThanOrEqual(Date.parse(revoked.createdAt))
  expect(rows[2]).toMatchObject({ id: expired.id, expiresAt: expired.expiresAt, revokedAt: null })
  const history = (await ctx.call('GET', `/content/history/${TEAM}?id=${enc(ID)}`)).body
  expect(history.snapshots.map((s: any) => s.id)).toEqual([kept.id])
  // A document with none lists none; the translator (EditContent) reads it too.
  await ok(ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/bare/draft', contentType: 'page', fields: {}, locales: { en: { title: 'Bare' } } } }))
  expect((await list('?documentId=pages/bare', TOKENS.translator)).body).toEqual({ documentId: 'pages/bare', snapshots: [] })
})

test('a listed revoked or expired snapshot is still refused by apply-snapshot with 409 and its reason', async () => {
  for (const snap of [revoked, expired]) {
    const res = await ctx.call('POST', `/content/apply-snapshot/${TEAM}`, { body: { snapshotId: snap.id } })
    expect(res.status).toBe(409)
    expect(JSON.stringify(res.body)).toMatch(/revoked|expired/)
  }
})

test('errors: missing, sibling or invalid documentId is 400 with its code; an unknown document 404; no token 401; another team 403', async () => {
  const cases: [string, number, string][] = [
    ['', 400, 'missing_id'],
    ['?documentId=', 400, 'missing_id'],
    [`?documentId=${enc(`${ID}/draft`)}`, 400, 'sibling_id'],
    [`?documentId=${enc(kept.id)}`, 400, 'sibling_id'],
    [`?documentId=${enc('pages/../x')}`, 400, 'invalid_id'],
    ['?documentId=pages/nothing', 404, 'not_found'],
  ]
  for (const [query, status, error] of cases) {
    const res = await list(query)
    expect({ query, status: res.status, error: res.body.error, message: typeof res.body.message }).toEqual({ query, status, error, message: 'string' })
  }
  expect((await ctx.call('GET', `/content/snapshots/${TEAM}?documentId=${enc(ID)}`, { token: null })).body.error).toBe('unauthorized')
  const outsider = await list(`?documentId=${enc(ID)}`, TOKENS.outsider)
  expect({ status: outsider.status, error: outsider.body.error }).toEqual({ status: 403, error: 'forbidden' })
})
