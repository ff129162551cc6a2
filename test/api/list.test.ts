/** `GET /content/list/{activeTeam}`: the team's documents, one row per canonical id, keyset-paged. */
import { sqliteOf, sqliteOnly } from '../dialect'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM, TOKENS, type TestContext } from '../helpers'
import { ok } from '../core/restore/fixtures'
import { LIST_SCHEDULES_SQL } from '../../db/queries/documents'

let ctx: TestContext
const list = (query = '', token = TOKENS.editor) => ctx.call('GET', `/content/list/${TEAM}${query}`, { token })
const page = (id: string, en: string, de?: string) =>
  ({ id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: en, slug: en }, ...(de ? { de: { title: de, slug: de } } : {}) } })

beforeAll(async () => {
  ctx = await createTestContext()
  const post = (body: unknown) => ctx.call('POST', `/content/${TEAM}`, { body })
  const run = (op: string, ids: string[]) => ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids } })
  // pages/a: published, then a draft that changes de only.
  await ok(post(page('pages/a', 'a', 'a-de')))
  await ok(run('publish', ['pages/a']))
  await ok(post({ ...page('pages/a', 'a', 'a-neu'), id: 'pages/a/draft' }))
  // pages/b: never published, a canonical only; pages/c: a draft only.
  await ok(post(page('pages/b', 'b')))
  await ok(post({ ...page('pages/c', 'c'), id: 'pages/c/draft' }))
  // pages/old: published then archived; pages/gone: deleted (reads leave it out).
  await ok(post(page('pages/old', 'old')))
  await ok(run('publish', ['pages/old']))
  await ok(run('archive', ['pages/old']))
  await ok(post(page('pages/gone', 'gone')))
  await ok(run('delete', ['pages/gone']))
  await ok(post({ id: 'products/p1', contentType: 'product', fields: { sku: 'P1' }, locales: { en: { name: 'One' } } }))
  // A snapshot and the activity documents are siblings, not documents of their own.
  expect((await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/a' } })).status).toBe(201)
})
afterAll(() => ctx.close())

test('one row per canonical id, in id order, with its state; deleted documents and siblings are left out', async () => {
  const res = await list()
  expect(res.status).toBe(200)
  const rows = res.body.rows as any[]
  expect(rows.map((r) => r.id)).toEqual(['pages/a', 'pages/b', 'pages/c', 'pages/home', 'pages/old', 'products/p1'])
  const row = (id: string) => rows.find((r) => r.id === id)
  expect(row('pages/a')).toEqual({ id: 'pages/a', contentType: 'page', collection: 'pages', published: true, archived: false, draft: true, dirtyLocales: ['de'], updatedAt: expect.any(String), title: 'a', scheduledAt: null })
  expect(row('pages/b')).toMatchObject({ published: false, archived: false, draft: false, dirtyLocales: [] })
  expect(row('pages/c')).toMatchObject({ published: false, draft: true, dirtyLocales: ['en'] })
  expect(row('pages/home')).toMatchObject({ published: true, draft: false })
  expect(row('pages/old')).toMatchObject({ published: false, archived: true })
  expect(row('products/p1')).toMatchObject({ contentType: 'product', collection: 'products' })
  // The newer of canonical and draft.
  const draft = (await ctx.call('GET', `/content/${TEAM}?id=pages/a/draft`)).body
  expect(row('pages/a').updatedAt).toBe(draft['@metadata']['@last-modified'])
  expect(res.body).toMatchObject({ hasMore: false, nextAfter: null })
})

test('keyset pages walk every row once; collection filters; a deep page is as cheap as the first', async () => {
  const all = ((await list()).body.rows as any[]).map((r) => r.id)
  const seen: string[] = []
  let after: string | null = ''
  let pages = 0
  while (after !== null) {
    const res = await list(`?pageSize=4${after ? `&after=${enc(after)}` : ''}`)
    expect(res.status).toBe(200)
    expect(res.body.rows.length).toBeLessThanOrEqual(4)
    seen.push(...res.body.rows.map((r: any) => r.id))
    expect(res.body.hasMore).toBe(res.body.nextAfter !== null)
    after = res.body.nextAfter
    pages++
  }
  expect({ seen, pages }).toEqual({ seen: all, pages: 2 })
  expect((await list('?collection=products')).body.rows.map((r: any) => r.id)).toEqual(['products/p1'])
  expect((await list('?collection=nothing')).body).toEqual({ rows: [], hasMore: false, nextAfter: null })
  expect((await list(`?after=${enc('pages/home')}&pageSize=1`)).body).toMatchObject({ rows: [{ id: 'pages/old' }], hasMore: true, nextAfter: 'pages/old' })
  // An after past every id, or of any text, is a place in the order, not an id that must exist.
  expect((await list(`?after=${enc('zzz')}`)).body.rows).toEqual([])
  expect((await list(`?after=${enc('../../')}`)).body.rows.map((r: any) => r.id)).toEqual(all)
  expect((await list(`?after=${enc('pages/ä')}`)).body.rows.map((r: any) => r.id)).toEqual(['products/p1'])
})

test('bad paging is 400 bad_paging; a large pageSize is capped at 100; a 10 KB after is 400; capabilities as reads', async () => {
  for (const bad of ['0', '-1', 'abc', '2.5', '1e1']) {
    const res = await list(`?pageSize=${bad}`)
    expect({ bad, status: res.status, body: res.body }).toEqual({ bad, status: 400, body: { error: 'bad_paging', message: '`pageSize` must be a positive integer.' } })
  }
  expect((await list('?pageSize=100000')).body.rows).toHaveLength(6)
  expect((await list(`?pageSize=${'9'.repeat(400)}`)).body.rows).toHaveLength(6) // a whole number, however long
  const long = await list(`?after=${'x'.repeat(10_000)}`)
  expect({ status: long.status, error: long.body.error }).toEqual({ status: 400, error: 'invalid_body' })
  expect((await list('', TOKENS.translator)).status).toBe(200) // EditContent reads
  const outsider = await list('', TOKENS.outsider)
  expect({ status: outsider.status, body: outsider.body }).toEqual({ status: 403, body: { error: 'forbidden', message: 'You are not a member of this team.' } })
  expect((await ctx.call('GET', `/content/list/${TEAM}`, { token: null })).status).toBe(401)
  // Its own team lists its own documents only.
  expect((await ctx.call('GET', '/content/list/other', { token: TOKENS.outsider })).body.rows).toEqual([])
})

test('each row carries its title in the default language (from the draft, else the name field, else null) and when a publish is scheduled', async () => {
  const post = (body: unknown) => ctx.call('POST', `/content/${TEAM}`, { body })
  // The draft's title wins over the live one; a title only in another language is no title.
  await ok(post({ ...page('pages/t1', 'Live title'), id: 'pages/t1' }))
  await ok(post({ ...page('pages/t1', 'Draft title'), id: 'pages/t1/draft' }))
  await ok(post({ id: 'pages/t2', contentType: 'page', fields: { parent: null }, locales: { en: { slug: 't2' }, de: { title: 'Nur deutsch', slug: 't2' } } }))
  await ok(post({ id: 'pages/t3', contentType: 'page', fields: { parent: null }, locales: { en: { title: 42, slug: 't3' } } }))
  const publishAt = new Date(Date.now() + 86_400_000).toISOString()
  const sched = await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/t1', publishAt } })
  expect(sched.status).toBe(201)
  const rows = (await list('?collection=pages')).body.rows as any[]
  const row = (id: string) => rows.find((r) => r.id === id)
  expect(row('pages/t1')).toMatchObject({ title: 'Draft title', scheduledAt: publishAt })
  expect(row('pages/t2')).toMatchObject({ title: null, scheduledAt: null })
  expect(row('pages/t3').title).toBeNull() // not text
  expect((await list('?collection=products')).body.rows[0]).toMatchObject({ id: 'products/p1', title: 'One', scheduledAt: null })
  // Both on a keyset page of one row too, and gone again after an unschedule.
  expect((await list(`?pageSize=1&after=${enc('pages/old')}`)).body.rows).toMatchObject([{ id: 'pages/t1', title: 'Draft title', scheduledAt: publishAt }])
  await ok(ctx.call('POST', `/content/unschedule/${TEAM}`, { body: { ids: ['pages/t1'] } }))
  expect((await list(`?pageSize=1&after=${enc('pages/old')}`)).body.rows[0].scheduledAt).toBeNull()
})

sqliteOnly('reads SQLite\'s EXPLAIN QUERY PLAN of the SQLite query text').test('the scheduled times of a page are read by primary key, whatever the number of schedules', () => {
  const plan = (sqliteOf(ctx.db).$client.query(`EXPLAIN QUERY PLAN ${LIST_SCHEDULES_SQL}`).all(TEAM, '["pages/a"]') as { detail: string }[]).map((r) => r.detail).join(' | ')
  expect(plan).toContain('SEARCH schedules USING INDEX sqlite_autoindex_schedules_1 (team_id=? AND document_id=?)')
  expect(plan).not.toMatch(/SCAN schedules/)
})
