import { rows, run } from '../rows'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())
const changes = () => rows(ctx.db, 'SELECT status, user_id AS "userId" FROM site_changes ORDER BY id')
const put = (path: string, body: unknown, token = TOKENS.editor) => ctx.call('PUT', `/teams/${TEAM}${path}`, { body, token })

test('settings need ManageTeam', async () => {
  expect((await put('/locales', { locales: ['en'], defaultLocale: 'en' }, null as unknown as string)).status).toBe(401)
  expect((await put('/locales', { locales: ['en'], defaultLocale: 'en' }, TOKENS.webhooks)).body).toEqual({ error: 'forbidden', message: 'Missing capability: ManageTeam.' })
  expect((await ctx.call('PUT', '/teams/other/localization', { body: { fallbacks: {} } })).status).toBe(403)
  expect(await changes()).toEqual([])
})

test('each setting reads back as its PUT takes it (EditContent or ManageTeam): read, change, send back', async () => {
  const get = (path: string, token: string | null = TOKENS.editor) => ctx.call('GET', `/teams/${TEAM}${path}`, { token })
  const own = await createTestContext()
  try {
    const locales = await get('/locales', TOKENS.translator)
    expect({ status: locales.status, body: locales.body }).toEqual({ status: 200, body: { locales: ['en', 'de', 'fr'], defaultLocale: 'en' } })
    expect((await get('/localization')).body).toEqual({ fallbacks: {} })
    // Each answer goes back to its PUT as it is, changed or not.
    expect((await own.call('PUT', `/teams/${TEAM}/locales`, { body: { ...locales.body, locales: [...locales.body.locales, 'it'] } })).status).toBe(200)
    expect((await own.call('PUT', `/teams/${TEAM}/localization`, { body: { fallbacks: { ...(await own.call('GET', `/teams/${TEAM}/localization`)).body.fallbacks, it: 'en' } } })).status).toBe(200)
    expect((await own.call('GET', `/teams/${TEAM}/locales`)).body).toEqual({ locales: ['en', 'de', 'fr', 'it'], defaultLocale: 'en' })
    expect((await own.call('GET', `/teams/${TEAM}/localization`)).body).toEqual({ fallbacks: { it: 'en' } })
    const types = await get('/content-types')
    expect(types.body.map((d: { name: string }) => d.name)).toEqual(['page', 'product'])
    const page = await get('/content-types/page')
    expect(page.body).toEqual(types.body[0])
    expect(page.body).toMatchObject({ name: 'page', collection: 'pages', urls: true, fields: expect.any(Array) })
    // `urls` is spelled out (false when a PUT left it out), so sending the type back keeps it.
    expect((await get('/content-types/product')).body).toMatchObject({ name: 'product', urls: false })
    // A label added and the type sent back: its URLs stay (no site change), the label is kept.
    const labelled = await own.call('PUT', `/teams/${TEAM}/content-types/page`, { body: { ...(await own.call('GET', `/teams/${TEAM}/content-types/page`)).body, label: 'Web page' } })
    expect(labelled.body).toMatchObject({ siteChanged: false, definition: { label: 'Web page', urls: true } })
    expect((await own.call('GET', `/teams/${TEAM}/content-types/page`)).body).toMatchObject({ label: 'Web page', urls: true })
    expect((await get('/content-index')).body).toEqual({ definition: null, indexGeneration: 0, indexedGeneration: 0 })
    await own.call('PUT', `/teams/${TEAM}/content-index`, { body: { fields: ['title'] } })
    expect((await own.call('GET', `/teams/${TEAM}/content-index`)).body).toMatchObject({ definition: { fields: ['title'] }, indexGeneration: 1 })
    // Refusals: unknown type, a name that is no type name, no token, a member without either capability, another team.
    expect(await get('/content-types/nope')).toMatchObject({ status: 404, body: { error: 'not_found', message: 'Content type not found.' } })
    expect(await get('/content-types/..%2fx')).toMatchObject({ status: 400, body: { error: 'invalid_body' } })
    expect(await get('/locales', null)).toMatchObject({ status: 401, body: { error: 'unauthorized' } })
    expect(await get('/content-types', TOKENS.webhooks)).toMatchObject({ status: 403, body: { error: 'forbidden', message: 'Missing capability: one of EditContent, ManageTeam.' } })
    expect(await ctx.call('GET', '/teams/other/locales')).toMatchObject({ status: 403, body: { error: 'forbidden' } })
  } finally {
    await own.close()
  }
})

test('validation, and a PUT that changes nothing records nothing', async () => {
  expect((await put('/locales', { locales: ['en', 'de'], defaultLocale: 'fr' })).body.error).toBe('invalid_body')
  expect((await put('/localization', { fallbacks: { xx: 'en' } })).body.error).toBe('invalid_body')
  expect((await put('/content-types/page', { name: 'other', collection: 'pages', fields: [] })).body.error).toBe('invalid_body')
  expect((await put('/locales', { locales: ['en', 'de', 'fr'], defaultLocale: 'en' })).body).toEqual({ locales: ['en', 'de', 'fr'], defaultLocale: 'en', fallbacks: {} })
  expect(await changes()).toEqual([])
})

test('content type names are a letter then letters, digits, _ or -; field names are one line, each once', async () => {
  const type = { collection: 'things', fields: [{ name: 'title' }] }
  for (const name of ['%00', '..%2f..%2fx', 'x%2Fy', '__proto__', '_x', '1abc', 'a b', '%ED%A0%80', 'é', 'x'.repeat(101)]) {
    const res = await put(`/content-types/${name}`, type)
    expect({ name, status: res.status, error: res.body.error }).toEqual({ name, status: 400, error: 'invalid_body' })
  }
  for (const fields of [[{ name: 'x' }, { name: 'x', localizable: true }], [{ name: 'a\u0000b' }], [{ name: '\ud800' }], [{ name: '' }]]) {
    const res = await put('/content-types/things', { collection: 'things', fields })
    expect({ fields, status: res.status, error: res.body.error }).toEqual({ fields, status: 400, error: 'invalid_body' })
  }
  expect(await rows(ctx.db, "SELECT name FROM content_types WHERE name NOT IN ('page', 'product')")).toEqual([])
  expect((await put('/content-types/blog-post_2', { collection: 'posts', fields: [{ name: 'Title text' }] })).status).toBe(200)
  // Back to the seed's state for the tests below, which count site changes.
  await run(ctx.db, "DELETE FROM content_types WHERE name = 'blog-post_2'")
  await run(ctx.db, 'DELETE FROM site_changes')
})

test('locale codes are case-insensitive (en and EN are one) and fallbacks may not go round in a circle', async () => {
  const dup = await put('/locales', { locales: ['en', 'EN', 'de'], defaultLocale: 'en' })
  expect({ status: dup.status, body: dup.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: 'Locales must be unique (ignoring case).' } })
  for (const fallbacks of [{ de: 'fr', fr: 'de' }, { de: 'fr', fr: 'en', en: 'de' }]) {
    const res = await put('/localization', { fallbacks })
    expect({ fallbacks, status: res.status, error: res.body.error }).toEqual({ fallbacks, status: 400, error: 'invalid_body' })
  }
  const chain = await put('/localization', { fallbacks: { de: 'fr', fr: 'en' } })
  expect(chain.body.fallbacks).toEqual({ de: 'fr', fr: 'en' })
  expect((await put('/localization', { fallbacks: {} })).status).toBe(200)
  await run(ctx.db, 'DELETE FROM site_changes')
})

test('locale codes are BCP 47-style tags: __proto__, paths, spaces and the empty string are refused', async () => {
  for (const bad of ['__proto__', '../x', 'en us', '', 'e', 'x'.repeat(36), 'constructor', 'en/../de', 'ünï']) {
    const res = await put('/locales', { locales: ['en', bad], defaultLocale: 'en' })
    expect({ bad, status: res.status, error: res.body.error, message: typeof res.body.message }).toEqual({ bad, status: 400, error: 'invalid_body', message: 'string' })
  }
  const ok = await put('/locales', { locales: ['en', 'de-CH', 'zh-Hant-TW', 'pt_BR'], defaultLocale: 'en' })
  expect(ok.body).toEqual({ locales: ['en', 'de-CH', 'zh-Hant-TW', 'pt_BR'], defaultLocale: 'en', fallbacks: {} })
  expect((await put('/locales', { locales: ['en', 'de', 'fr'], defaultLocale: 'en' })).status).toBe(200)
  expect(await changes()).toEqual([{ status: 'locales', userId: 'u-editor' }, { status: 'locales', userId: 'u-editor' }])
  await run(ctx.db, 'DELETE FROM site_changes')
})

test('each visible change records one site change with its status', async () => {
  expect((await put('/locales', { locales: ['en', 'de'], defaultLocale: 'de' })).status).toBe(200)
  expect((await put('/localization', { fallbacks: { en: 'de' } })).body).toEqual({ locales: ['en', 'de'], defaultLocale: 'de', fallbacks: { en: 'de' } })
  const type = { collection: 'products', urls: false, fields: [{ name: 'name', localizable: true }, { name: 'sku' }] }
  expect((await put('/content-types/product', { ...type, icon: 'box', description: 'Things' })).body.siteChanged).toBe(false)
  // `urls` left out is `urls: false`: the same type, nothing the site sees changed.
  const { urls: _, ...withoutUrls } = type
  expect((await put('/content-types/product', withoutUrls)).body.siteChanged).toBe(false)
  // So is a field's `localizable` left out: `localizable: false`, said or not, is the same field.
  expect((await put('/content-types/product', { ...type, fields: [{ name: 'name', localizable: true }, { name: 'sku', localizable: false }] })).body.siteChanged).toBe(false)
  expect((await put('/content-types/product', type)).body.siteChanged).toBe(false)
  expect((await put('/content-types/product', { ...type, urls: true })).body).toEqual({ definition: { ...type, urls: true, name: 'product' }, siteChanged: true })
  expect((await put('/content-index', { fields: ['name'] })).body).toEqual({ indexGeneration: 1 })
  expect((await put('/content-index', { fields: ['name'] })).body).toEqual({ indexGeneration: 2 })
  const s = (status: string) => ({ status, userId: 'u-editor' })
  expect(await changes()).toEqual([s('locales'), s('localization'), s('template'), s('index'), s('index')])
  // The same fallbacks in another key order change nothing.
  expect((await put('/locales', { locales: ['en', 'de', 'fr'], defaultLocale: 'de' })).status).toBe(200)
  expect((await put('/localization', { fallbacks: { en: 'de', fr: 'de' } })).status).toBe(200)
  const before = (await changes()).length
  expect((await put('/localization', { fallbacks: { fr: 'de', en: 'de' } })).body.fallbacks).toEqual({ en: 'de', fr: 'de' })
  expect(await changes()).toHaveLength(before)
})

test('the CLI push command deploys the index and records an `index` site change by user cli', async () => {
  const file = `${ctx.dir}/index.json`
  await Bun.write(file, JSON.stringify({ fields: ['title'] }))
  const p = Bun.spawn(['bun', 'cli/main.ts', 'push-index', file, TEAM], { cwd: new URL('../..', import.meta.url).pathname, env: { ...process.env, DATABASE_PATH: ctx.path, ...(ctx.config.databaseUrl ? { DATABASE_URL: ctx.config.databaseUrl } : {}) }, stdout: 'pipe', stderr: 'pipe' })
  expect(await p.exited).toBe(0)
  expect(JSON.parse(await new Response(p.stdout).text())).toMatchObject({ ok: true, indexGeneration: 3 })
  expect((await changes()).at(-1)).toEqual({ status: 'index', userId: 'cli' })
})

test('moving a content type to another collection gives each of its documents a new ETag: a copy held with If-None-Match is read again', async () => {
  const type = (collection: string) => ({ collection, urls: false, fields: [{ name: 'title', localizable: true }] })
  expect((await put('/content-types/memo', type('memos'))).status).toBe(200)
  const doc = (id: string) => ({ id, contentType: 'memo', fields: {}, locales: { en: { title: id } } })
  for (const id of ['memos/a', 'memos/a/draft', 'memos/b']) expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc(id) })).status).toBe(200)
  const read = (id: string, etag?: string) => ctx.call('GET', `/content/${TEAM}?id=${id}`, { headers: etag ? { 'if-none-match': etag } : {} })
  const ids = ['memos/a', 'memos/a/draft', 'memos/b', 'pages/home']
  const before = new Map<string, string>()
  for (const id of ids) before.set(id, (await read(id)).headers.get('etag')!)
  // A change that keeps the collection moves nothing: every held copy is still current.
  expect((await put('/content-types/memo', { ...type('memos'), label: 'Memo' })).status).toBe(200)
  for (const id of ids) expect({ id, status: (await read(id, before.get(id))).status }).toEqual({ id, status: 304 })
  expect((await put('/content-types/memo', type('notes'))).status).toBe(200)
  for (const id of ids.slice(0, 3)) {
    const again = await read(id, before.get(id))
    expect({ id, status: again.status, collection: again.body['@metadata']['@collection'] }).toEqual({ id, status: 200, collection: 'notes' })
    expect(again.headers.get('etag')).not.toBe(before.get(id))
    expect(again.body['@metadata']['@change-vector']).toBe(JSON.parse(again.headers.get('etag')!))
  }
  // Another type's document is left as it was.
  expect((await read('pages/home', before.get('pages/home'))).status).toBe(304)
  // An If-Match with the tag from before the move is refused: the document moved on.
  const stale = await ctx.call('POST', `/content/${TEAM}`, { body: doc('memos/b'), headers: { 'if-match': before.get('memos/b')! } })
  expect({ status: stale.status, error: stale.body.error }).toEqual({ status: 409, error: 'conflict' })
})
