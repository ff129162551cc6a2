import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM, TOKENS, type TestContext } from '../helpers'
import { countRevisions } from '../../db/store'
import { dueSchedules } from '../../core/publish/scheduled'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

const base = `/content/${TEAM}`
const page = (id: string, locales: Record<string, Record<string, unknown>> = { en: { title: 'T', slug: 's' } }, fields: Record<string, unknown> = { parent: 'pages/home' }) => ({ id, contentType: 'page', fields, locales })
const read = async (id: string) => (await ctx.call('GET', `${base}?id=${enc(id)}`)).body
const IF_MATCH_FAILED = 'The document is not at the version If-Match names: it changed since you read it, or it does not exist (deleted documents do not). Re-read it and retry.'
const strip = ({ '@metadata': _m, ...rest }: Record<string, unknown>) => rest

describe('POST /content/{activeTeam}', () => {
  test('creates a canonical and reads it back with @metadata and an ETag', async () => {
    const res = await ctx.call('POST', base, { body: page('pages/one') })
    expect(res.status).toBe(200)
    expect(strip(res.body)).toEqual(page('pages/one'))
    const cv: string = res.body['@metadata']['@change-vector']
    expect(cv).toMatch(/^A:\d+-[A-Za-z0-9]+$/)
    expect(res.body['@metadata']['@collection']).toBe('pages')
    const get = await ctx.call('GET', `${base}?id=pages/one`)
    expect(get.body).toEqual(res.body)
    expect(get.headers.get('etag')).toBe(`"${cv}"`)
  })

  test('removes forged stamp fields, __dirtyLocales, @metadata and Id from the body', async () => {
    const forged = { ...page('pages/forged'), __publishedBy: 'mallory', __publishedAt: '2020-01-01T00:00:00.0000000Z', __dirtyLocales: ['xx'], Id: 'x', '@metadata': { a: 1 } }
    const res = await ctx.call('POST', base, { body: forged })
    expect(res.status).toBe(200)
    expect(strip(res.body)).toEqual(page('pages/forged'))
    expect(strip(await read('pages/forged'))).toEqual(page('pages/forged'))
  })

  test('a draft gets __dirtyLocales computed against the live canonical', async () => {
    await ctx.call('POST', base, { body: page('pages/dirty', { en: { title: 'A', slug: 'a' }, de: { title: 'B', slug: 'b' } }) })
    const draft = { ...page('pages/dirty/draft', { en: { title: 'A', slug: 'a' }, de: { title: 'B2', slug: 'b' }, fr: { title: 'C', slug: 'c' } }), __dirtyLocales: ['en'] }
    // Not published yet: nothing of it is live, so every locale carries unpublished changes.
    expect((await ctx.call('POST', base, { body: draft })).body.__dirtyLocales).toEqual(['de', 'en', 'fr'])
    expect((await ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/dirty'] } })).body[0].status).toBe(0)
    expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/dirty'] } })).body[0].status).toBe(0)
    const res = await ctx.call('POST', base, { body: draft })
    expect(res.status).toBe(200)
    expect(res.body.__dirtyLocales).toEqual(['de', 'fr'])
  })

  test('a live canonical rewritten in place (POST or PATCH) makes the draft\'s now-different locales dirty: publishing the draft would undo the fix', async () => {
    const live = { en: { title: 'E', slug: 'inplace' }, de: { title: 'D', slug: 'inplace-de' } }
    await ctx.call('POST', base, { body: page('pages/inplace', live) })
    await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/inplace'] } })
    await ctx.call('PATCH', `${base}?id=pages/inplace/draft`, { body: [{ op: 'replace', path: '/locales/de/title', value: 'D2' }] })
    expect((await read('pages/inplace/draft')).__dirtyLocales).toEqual(['de'])
    // A fix straight to the live page (ChangeLiveContent): the draft's en is the old text now.
    expect((await ctx.call('POST', base, { body: page('pages/inplace', { ...live, en: { title: 'E-fixed', slug: 'inplace' } }) })).status).toBe(200)
    const draft = await read('pages/inplace/draft')
    expect({ en: draft.locales.en.title, dirty: draft.__dirtyLocales }).toEqual({ en: 'E', dirty: ['de', 'en'] })
    // The same by PATCH of the canonical; and a live change the draft already holds is clean again.
    await ctx.call('PATCH', `${base}?id=pages/inplace`, { body: [{ op: 'replace', path: '/locales/de/title', value: 'D2' }, { op: 'replace', path: '/locales/en/title', value: 'E' }] })
    expect((await read('pages/inplace/draft')).__dirtyLocales).toEqual([])
    await ctx.call('PATCH', `${base}?id=pages/inplace`, { body: [{ op: 'replace', path: '/locales/de/title', value: 'D3' }] })
    expect((await read('pages/inplace/draft')).__dirtyLocales).toEqual(['de'])
  })

  test('a draft of a document with no canonical has every locale dirty', async () => {
    const res = await ctx.call('POST', base, { body: page('pages/new/draft', { en: { title: 'A', slug: 'a' }, de: { title: 'B', slug: 'b' } }) })
    expect(res.body.__dirtyLocales).toEqual(['de', 'en'])
  })

  test('a live locale the draft drops is dirty: draft write, PATCH and a publish with locales that leaves a draft agree', async () => {
    const live = { en: { title: 'E', slug: 'e' }, de: { title: 'D', slug: 'd' }, fr: { title: 'F', slug: 'f' } }
    await ctx.call('POST', base, { body: page('pages/drop', live) })
    await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/drop'] } })
    // spec.md "Other draft-related fields": removing a locale is an unpublished change too.
    const written = await ctx.call('POST', base, { body: page('pages/drop/draft', { en: live.en }) })
    expect(strip(written.body)).toEqual({ ...page('pages/drop/draft', { en: live.en }), __dirtyLocales: ['de', 'fr'] })
    const patched = await ctx.call('PATCH', `${base}?id=pages/drop/draft`, { body: [{ op: 'add', path: '/locales/fr', value: live.fr }] })
    expect(patched.body.__dirtyLocales).toEqual(['de'])
    const partial = await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/drop'], locales: ['en'] } })
    expect(partial.body[0].document.locales).toEqual(live)
    expect(strip(await read('pages/drop/draft'))).toEqual({ ...page('pages/drop/draft', { en: live.en, fr: live.fr }), __dirtyLocales: ['de'] })
    // Publishing the whole draft takes de down, as the dirty set said it would.
    const whole = await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/drop'] } })
    expect(whole.body[0].document.locales).toEqual({ en: live.en, fr: live.fr })
    expect((await ctx.call('GET', `${base}?id=pages/drop/draft`)).status).toBe(404)
  })

  test('editing appends EDIT activity entries per changed locale and a locale-less one for fields', async () => {
    await ctx.call('POST', base, { body: page('pages/act', { en: { title: 'A', slug: 'a' } }) })
    await ctx.call('POST', base, { body: page('pages/act/draft', { en: { title: 'A', slug: 'a' }, de: { title: 'B', slug: 'b' } }, { parent: null }) })
    const activity = await read('pages/act/activity')
    const last = activity.entries.slice(-2).map((e: { kind: string; locale: string | null; userId: string }) => [e.kind, e.locale, e.userId])
    expect(last).toEqual([['EDIT', 'de', 'u-editor'], ['EDIT', null, 'u-editor']])
  })

  test('If-Match with a stale change vector is 409 and writes nothing', async () => {
    const first = await ctx.call('POST', base, { body: page('pages/etag') })
    const stale = first.body['@metadata']['@change-vector']
    await ctx.call('POST', base, { body: page('pages/etag', { en: { title: 'second', slug: 's' } }) })
    const res = await ctx.call('POST', base, { body: page('pages/etag', { en: { title: 'third', slug: 's' } }), headers: { 'if-match': `"${stale}"` } })
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ error: 'conflict', message: IF_MATCH_FAILED })
    expect((await read('pages/etag')).locales.en.title).toBe('second')
  })

  test('If-Match as RFC 9110 reads it: `*`, a list of tags, weak tags, on POST and PATCH', async () => {
    const first = await ctx.call('POST', base, { body: page('pages/im') })
    const cv = first.body['@metadata']['@change-vector']
    const post = (ifMatch: string, title: string) => ctx.call('POST', base, { body: page('pages/im', { en: { title, slug: 's' } }), headers: { 'if-match': ifMatch } })
    const patch = (ifMatch: string, title: string) =>
      ctx.call('PATCH', `${base}?id=pages/im`, { body: [{ op: 'replace', path: '/locales/en/title', value: title }], headers: { 'if-match': ifMatch } })
    // A weak tag never matches (strong comparison), nor does a list without the current tag.
    for (const refused of [`W/"${cv}"`, '"other", "A:1-x"']) {
      for (const write of [post, patch]) {
        const res = await write(refused, 'refused')
        expect({ refused, status: res.status, body: res.body }).toEqual({ refused, status: 409, body: { error: 'conflict', message: expect.any(String) } })
      }
    }
    expect((await read('pages/im')).locales.en.title).not.toBe('refused')
    // `*` matches any existing document; a list matches when one of its tags does.
    const star = await post('*', 'star')
    expect(star.status).toBe(200)
    const listed = await patch(`"nope", ${star.headers.get('etag')}`, 'listed')
    expect(listed.status).toBe(200)
    expect((await read('pages/im')).locales.en.title).toBe('listed')
    // `*` on a document that does not exist is refused; without If-Match it is created.
    const none = await ctx.call('POST', base, { body: page('pages/im-new'), headers: { 'if-match': '*' } })
    expect({ status: none.status, body: none.body }).toEqual({ status: 409, body: { error: 'conflict', message: expect.any(String) } })
    expect((await ctx.call('GET', `${base}?id=pages/im-new`)).status).toBe(404)
    // A soft-deleted document does not exist either: `*` does not bring it back, nor does its old tag.
    const etag = (await ctx.call('GET', `${base}?id=pages/im`)).headers.get('etag')!
    expect((await ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/im'] } })).body[0].status).toBe(0)
    for (const ifMatch of ['*', etag]) {
      const back = await post(ifMatch, 'back')
      // Said as it is: the document does not exist (not "changed by someone else").
      expect({ ifMatch, status: back.status, body: back.body }).toEqual({ ifMatch, status: 409, body: { error: 'conflict', message: IF_MATCH_FAILED } })
    }
    expect((await ctx.call('GET', `${base}?id=pages/im`)).status).toBe(404)
  })

  test('an If-Match that is no entity-tag list is 400 invalid_if_match, not a 409 the client would retry forever; nothing is written', async () => {
    const first = await ctx.call('POST', base, { body: page('pages/im-bad') })
    const cv = first.body['@metadata']['@change-vector']
    const message = 'If-Match must be `*`, or the ETag of a read ("<change vector>"), or a comma-separated list of such quoted tags.'
    for (const ifMatch of ['W/"x", "y', '"'.repeat(10_000), ',,,', `"${cv}" junk`, 'a b', '']) {
      for (const res of [
        await ctx.call('POST', base, { body: page('pages/im-bad', { en: { title: 'no', slug: 's' } }), headers: { 'if-match': ifMatch } }),
        await ctx.call('PATCH', `${base}?id=pages/im-bad`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'no' }], headers: { 'if-match': ifMatch } }),
      ]) expect({ ifMatch: ifMatch.slice(0, 20), status: res.status, body: res.body }).toEqual({ ifMatch: ifMatch.slice(0, 20), status: 400, body: { error: 'invalid_if_match', message } })
    }
    expect((await read('pages/im-bad'))['@metadata']['@change-vector']).toBe(cv)
    // Empty list elements are allowed (RFC 9110 5.6.1), and a lone unquoted tag as before.
    for (const ifMatch of [`, "other" ,, "${cv}",`, cv]) {
      const res = await ctx.call('PATCH', `${base}?id=pages/im-bad`, { body: [{ op: 'test', path: '/id', value: 'pages/im-bad' }], headers: { 'if-match': ifMatch } })
      expect({ ifMatch, status: res.status }).toEqual({ ifMatch, status: 200 })
    }
  })

  test('If-None-Match on a read: 304 without a body while the copy is current, weak tags and `*` too; 200 once it changed', async () => {
    const cv = (await ctx.call('POST', base, { body: page('pages/inm') })).body['@metadata']['@change-vector']
    const get = (ifNoneMatch: string, id = 'pages/inm') => ctx.call('GET', `${base}?id=${enc(id)}`, { headers: { 'if-none-match': ifNoneMatch } })
    for (const current of [`"${cv}"`, cv, `W/"${cv}"`, `"other", "${cv}"`, '*']) {
      const res = await get(current)
      expect({ current, status: res.status, text: res.text, etag: res.headers.get('etag') }).toEqual({ current, status: 304, text: '', etag: `"${cv}"` })
    }
    // Another tag: the whole document.
    const other = await get('"A:1-other"')
    expect({ status: other.status, title: other.body.locales.en.title, etag: other.headers.get('etag') }).toEqual({ status: 200, title: 'T', etag: `"${cv}"` })
    // Once the document changes, the old tag reads it again.
    await ctx.call('POST', base, { body: page('pages/inm', { en: { title: 'changed', slug: 's' } }) })
    const changed = await get(`"${cv}"`)
    expect({ status: changed.status, title: changed.body.locales.en.title }).toEqual({ status: 200, title: 'changed' })
    expect(changed.headers.get('etag')).not.toBe(`"${cv}"`)
    // A missing document is still 404, `*` or not; the check comes after reading.
    const missing = await get('*', 'pages/inm-missing')
    expect({ status: missing.status, error: missing.body.error }).toEqual({ status: 404, error: 'not_found' })
    // The same rules for an outsider: 403 before any 304.
    const outsider = await ctx.call('GET', `${base}?id=pages/inm`, { token: TOKENS.outsider, headers: { 'if-none-match': '*' } })
    expect(outsider.status).toBe(403)
  })

  test('no write other than publish creates a revision', async () => {
    await ctx.call('POST', base, { body: page('pages/norev') })
    await ctx.call('POST', base, { body: page('pages/norev/draft', { en: { title: 'd', slug: 's' } }) })
    await ctx.call('PATCH', `${base}?id=pages/norev`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'p' }] })
    await ctx.call('POST', `/content/copy/${TEAM}`, { body: { ids: ['pages/norev'] } })
    await ctx.call('POST', `/content/archive/${TEAM}`, { body: { ids: ['pages/norev'] } })
    expect(countRevisions(ctx.db, TEAM, 'pages/norev')).toBe(0)
  })
})

describe('bad input gets a clear 4xx and writes nothing', () => {
  const cases: [string, unknown, number, string][] = [
    ['malformed JSON', '{"id": "pages/x",', 400, 'malformed_json'],
    ['wrong types', { id: 42, contentType: 'page' }, 400, 'invalid_body'],
    ['locales of the wrong shape', { id: 'pages/x', contentType: 'page', locales: { en: 'text' } }, 400, 'invalid_body'],
    ['an unknown property', { id: 'pages/x', contentType: 'page', extra: 1 }, 400, 'invalid_body'],
    ['a traversal id', page('../etc/passwd'), 400, 'invalid_id'],
    ['a dot segment', page('pages/./x'), 400, 'invalid_id'],
    ['a 10 KB id', page('p'.repeat(10_000)), 400, 'invalid_id'],
    ['a sibling id other than draft', page('pages/x/scheduled'), 400, 'invalid_id'],
    ['an unknown content type', { id: 'pages/x', contentType: 'nope' }, 400, 'unknown_content_type'],
    ['an unknown locale', page('pages/x', { xx: { title: 't' } }), 400, 'unknown_locale'],
    ['a localizable field in `fields`', page('pages/x', { en: { slug: 's' } }, { parent: null, title: 'T' }), 400, 'misplaced_field'],
    ['a non-localizable field in a locale', page('pages/x', { en: { title: 'T', slug: 's', sku: 'A-1' } }), 400, 'misplaced_field'],
  ]
  for (const [name, body, status, code] of cases) {
    test(name, async () => {
      const res = await ctx.call('POST', base, { body })
      expect(res.status).toBe(status)
      expect(res.body).toEqual({ error: code, message: expect.any(String) })
      expect((await ctx.call('GET', `${base}?id=pages/x`)).status).toBe(404)
    })
  }

  test('a page slug that is not one path segment is 400 invalid_slug; unicode and inner spaces are fine', async () => {
    // `//evil.example` would be the page's path, and `new URL(path, site)` reads that as another host.
    for (const slug of ['/evil.example', 'a/b', 'a?b', 'a#b', '100%', 'a\\b', '.', '..', ' lead', 'trail ', 'nul\u0000', 'line\nbreak', 'x'.repeat(201)]) {
      const res = await ctx.call('POST', base, { body: page('pages/x', { en: { title: 'T', slug } }) })
      expect({ slug, status: res.status, body: res.body }).toEqual({ slug, status: 400, body: { error: 'invalid_slug', message: expect.stringContaining('en') } })
    }
    expect((await ctx.call('GET', `${base}?id=pages/x`)).status).toBe(404)
    for (const slug of ['über-uns', 'café menu', '', 'x'.repeat(200)]) {
      expect({ slug, status: (await ctx.call('POST', base, { body: page(`pages/ok-${slug.length}`, { en: { title: 'T', slug } }) })).status }).toEqual({ slug, status: 200 })
    }
    // A content type without URLs has no paths: its `slug` is just a field.
    const product = { id: 'products/x', contentType: 'product', fields: {}, locales: { en: { name: 'P', slug: '/whatever?' } } }
    expect((await ctx.call('POST', base, { body: product })).status).toBe(200)
  })

  test('a query parameter given twice is 400 invalid_body on every route, and nothing is written', async () => {
    await ctx.call('POST', base, { body: page('pages/twice') })
    const before = await read('pages/twice')
    const patch = [{ op: 'add', path: '/fields/sku', value: 'x' }]
    for (const [method, url, body] of [
      ['PATCH', `${base}?id=pages/twice&id=pages/home`, patch],
      ['PATCH', `${base}?id=pages/twice&id=pages/twice`, patch],
      ['GET', `${base}?id=pages/home&id=pages/twice`, undefined],
      ['GET', `/content/versions/${TEAM}?id=pages/home&version=a&version=b`, undefined],
    ] as const) {
      const res = await ctx.call(method, url, { body, headers: method === 'PATCH' ? { 'content-type': 'application/json-patch+json' } : {} })
      expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 400, body: { error: 'invalid_body', message: `A query parameter may be given once; repeated: ${url.includes('version=a') ? 'version' : 'id'}.` } })
    }
    expect(await read('pages/twice')).toEqual(before)
    expect((await read('pages/home')).fields).toEqual({ parent: null })
    // Still after authentication: a caller without a token learns nothing.
    expect((await ctx.call('GET', `${base}?id=a&id=b`, { token: null })).status).toBe(401)
  })

  test('a field the content type declares goes where its `localizable` flag says (400 misplaced_field naming it); fields it does not declare are kept anywhere; a field misplaced since its type changed stays editable around', async () => {
    const own = await createTestContext()
    try {
      const patch = (id: string, ops: unknown[]) => own.call('PATCH', `${base}?id=${enc(id)}`, { body: ops, headers: { 'content-type': 'application/json-patch+json' } })
      const res = await own.call('POST', base, { body: page('pages/m', { en: { slug: 'm', parent: 'pages/home' }, de: { title: 'T', sku: 1 } }, { title: 'T', slug: 'm' }) })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({
        error: 'misplaced_field',
        message: "Field(s) on the wrong side for content type page: fields.title, fields.slug, locales.en.parent, locales.de.sku. A localizable field goes in each locale's object (locales.<code>.<name>), any other in `fields`.",
      })
      expect((await own.call('GET', `${base}?id=pages/m`)).status).toBe(404)
      // Undeclared fields are the document's own business, on either side.
      const free = page('pages/m', { en: { title: 'T', slug: 'm', teaser: 'x' } }, { parent: 'pages/home', sku: 'A-1', layout: 'wide' })
      expect((await own.call('POST', base, { body: free })).status).toBe(200)
      // PATCH checks the patched document the same way; nothing is written.
      const cv = (await own.call('GET', `${base}?id=pages/m`)).body['@metadata']['@change-vector']
      for (const ops of [[{ op: 'add', path: '/fields/title', value: 'x' }], [{ op: 'move', from: '/fields/sku', path: '/locales/en/sku' }]]) {
        const r = await patch('pages/m', ops)
        expect([r.status, r.body.error]).toEqual([400, 'misplaced_field'])
      }
      expect((await own.call('GET', `${base}?id=pages/m`)).body['@metadata']['@change-vector']).toBe(cv)

      // The type changes: `sku` becomes localizable. The document holding it in `fields` stays
      // editable elsewhere; changing it there is refused; moving it into a locale is the fix.
      const type = { collection: 'pages', urls: true, fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }, { name: 'sku', localizable: true }] }
      expect((await own.call('PUT', `/teams/${TEAM}/content-types/page`, { body: type })).status).toBe(200)
      expect((await patch('pages/m', [{ op: 'replace', path: '/locales/en/title', value: 'T2' }])).status).toBe(200)
      expect((await own.call('POST', base, { body: page('pages/m/draft', { en: { title: 'T3', slug: 'm' } }, { parent: 'pages/home', sku: 'A-1' }) })).status).toBe(200)
      const changed = await patch('pages/m', [{ op: 'replace', path: '/fields/sku', value: 'B-2' }])
      expect(changed.body).toEqual({ error: 'misplaced_field', message: expect.stringContaining(': fields.sku.') })
      const moved = await patch('pages/m', [{ op: 'move', from: '/fields/sku', path: '/locales/en/sku' }])
      expect(moved.status).toBe(200)
      expect(moved.body.locales.en.sku).toBe('A-1')
    } finally {
      own.close()
    }
  })

  test('a page cannot be its own ancestor: its own parent, or a parent below it, is 400 invalid_body and nothing is written', async () => {
    const tree = (id: string, parent: string | null) => page(id, { en: { title: 'T', slug: id.split('/').pop()! } }, { parent })
    for (const [id, parent] of [['pages/cy-a', 'pages/home'], ['pages/cy-b', 'pages/cy-a'], ['pages/cy-c', 'pages/cy-b']] as const) {
      expect((await ctx.call('POST', base, { body: tree(id, parent) })).status).toBe(200)
    }
    const own = await ctx.call('POST', base, { body: tree('pages/cy-self', 'pages/cy-self') })
    expect({ status: own.status, body: own.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: '`fields.parent` would make "pages/cy-self" its own ancestor (its own parent): a page in a cycle has no URL.' } })
    expect((await ctx.call('GET', `${base}?id=pages/cy-self`)).status).toBe(404)
    const before = await read('pages/cy-a')
    for (const res of [
      await ctx.call('POST', base, { body: tree('pages/cy-a', 'pages/cy-c') }),
      await ctx.call('POST', base, { body: tree('pages/cy-a/draft', 'pages/cy-b') }),
      await ctx.call('PATCH', `${base}?id=pages/cy-a`, { body: [{ op: 'replace', path: '/fields/parent', value: 'pages/cy-c' }], headers: { 'content-type': 'application/json-patch+json' } }),
    ]) expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: '`fields.parent` would make "pages/cy-a" its own ancestor (through its parents): a page in a cycle has no URL.' } })
    expect(await read('pages/cy-a')).toEqual(before)
    expect((await ctx.call('GET', `${base}?id=pages/cy-a/draft`)).status).toBe(404)
    // Moving a page elsewhere in the tree, or under a parent whose own chain is broken, is fine.
    expect((await ctx.call('POST', base, { body: tree('pages/cy-c', 'pages/cy-a') })).status).toBe(200)
    expect((await ctx.call('POST', base, { body: tree('pages/cy-c', 'pages/nowhere') })).status).toBe(200)
    // A page stored in a cycle before the rule keeps its parent and stays editable; changing the parent is checked.
    expect((await ctx.call('POST', base, { body: tree('pages/cy-c', 'pages/cy-a') })).status).toBe(200)
    ctx.db.$client.query("UPDATE documents SET body = json_set(body, '$.fields.parent', 'pages/cy-c') WHERE team_id = ? AND id = 'pages/cy-a'").run(TEAM)
    expect((await ctx.call('PATCH', `${base}?id=pages/cy-a`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'Still editable' }], headers: { 'content-type': 'application/json-patch+json' } })).status).toBe(200)
    expect((await ctx.call('POST', base, { body: page('pages/cy-a/draft', { en: { title: 'Draft', slug: 'cy-a' } }, { parent: 'pages/cy-c' }) })).status).toBe(200)
    expect((await ctx.call('POST', base, { body: tree('pages/cy-a', 'pages/cy-b') })).status).toBe(400)
  })

  test('unknown locales are named back at most five, each cut to 32 characters', async () => {
    const locales = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`x${i}${'y'.repeat(200)}`, { title: 'T' }]))
    const res = await ctx.call('POST', base, { body: page('pages/many', locales) })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('unknown_locale')
    expect(res.body.message).toBe(`Unknown locale(s): ${['x0', 'x1', 'x2', 'x3', 'x4'].map((p) => `${p}${'y'.repeat(32 - p.length)}...`).join(', ')} and 145 more. A locale removed from the team is kept as the document holds it; it cannot be added or changed.`)
  })

  test('a page slug that is not a string is 400 invalid_slug and a parent that is not an id 400 invalid_body; null means none', async () => {
    // A number had been stored and then read as "no slug": the publish event claimed a complete, empty URL list.
    for (const slug of [123, true, ['a'], { x: 1 }]) {
      const res = await ctx.call('POST', base, { body: page('pages/typed', { en: { title: 'T', slug } }) })
      expect({ slug, status: res.status, error: res.body.error }).toEqual({ slug, status: 400, error: 'invalid_slug' })
    }
    // Nor a string that names no page: a sibling, a relative path, an over-long id.
    for (const parent of [{ x: 1 }, 7, ['pages/home'], false, 'pages/home/draft', 'pages/home/snapshot/t', '../x', 'pages//home', 'p'.repeat(481)]) {
      const res = await ctx.call('POST', base, { body: page('pages/typed', undefined, { parent }) })
      expect({ parent, status: res.status, body: res.body }).toEqual({ parent, status: 400, body: { error: 'invalid_body', message: '`fields.parent` must be the canonical id of the parent page, or null (or empty) for a root page.' } })
    }
    expect((await ctx.call('GET', `${base}?id=pages/typed`)).status).toBe(404)
    expect((await ctx.call('POST', base, { body: page('pages/typed', { en: { title: 'T', slug: null } }, { parent: null }) })).status).toBe(200)
    // The same checks hold for a JSON Patch.
    const patched = await ctx.call('PATCH', `${base}?id=pages/typed`, { body: [{ op: 'replace', path: '/locales/en/slug', value: 5 }] })
    expect({ status: patched.status, error: patched.body.error }).toEqual({ status: 400, error: 'invalid_slug' })
  })

  test('an oversized body is 413', async () => {
    const big = page('pages/x', { en: { title: 'x'.repeat(1_100_000) } })
    const res = await ctx.call('POST', base, { body: big })
    expect(res.status).toBe(413)
    expect(res.body.error).toBe('payload_too_large')
    expect((await ctx.call('GET', `${base}?id=pages/x`)).status).toBe(404)
  })

  test('a unicode id round-trips', async () => {
    const id = 'pages/über-уníçødé-页面-🚀'
    expect((await ctx.call('POST', base, { body: page(id) })).status).toBe(200)
    expect((await ctx.call('GET', `${base}?id=${enc(id)}`)).body.id).toBe(id)
  })

  test('reading without id is 400 missing_id, an unknown or huge id is 404', async () => {
    expect((await ctx.call('GET', base)).body.error).toBe('missing_id')
    expect((await ctx.call('GET', `${base}?id=nope`)).status).toBe(404)
    const huge = await ctx.call('GET', `${base}?id=${'x'.repeat(10_000)}`)
    expect(huge.status).toBe(404)
    expect(huge.body.error).toBe('not_found')
  })
})

describe('PATCH /content/{activeTeam}', () => {
  test('a small patch cannot build a document larger than a POST may write: copies are counted before they are made (413), nothing written', async () => {
    const LIMIT = 64 * 1024
    const own = await createTestContext({ env: { MAX_BODY_BYTES: String(LIMIT) } })
    try {
      const call = (body: unknown) => own.call('PATCH', `${base}?id=pages/amp/draft`, { body })
      expect((await own.call('POST', base, { body: page('pages/amp/draft') })).status).toBe(200)
      const before = (await own.call('GET', `${base}?id=pages/amp/draft`)).body
      const big = 'x'.repeat(20 * 1024)
      // Each copy of a 20 KB field: the fourth passes 64 KB. And a field holding copies, copied into itself, doubles each time.
      const copies = [{ op: 'add', path: '/fields/a', value: big }, ...Array.from({ length: 50 }, (_, i) => ({ op: 'copy', from: '/fields/a', path: `/fields/c${i}` }))]
      const doubling = [{ op: 'add', path: '/fields/a', value: { v: 'y'.repeat(1000) } }, ...Array.from({ length: 60 }, (_, i) => ({ op: 'copy', from: '/fields/a', path: `/fields/a/d${i}` }))]
      for (const body of [copies, doubling]) {
        const t = performance.now()
        const res = await call(body)
        expect({ status: res.status, body: res.body }).toEqual({ status: 413, body: { error: 'payload_too_large', message: `The patched document would be larger than ${LIMIT} bytes (MAX_BODY_BYTES), more than a POST may write.` } })
        expect(performance.now() - t).toBeLessThan(1000) // refused before it was built, not after
      }
      expect((await own.call('GET', `${base}?id=pages/amp/draft`)).body).toEqual(before)
      // Up to the limit is fine: two copies (60 KB in all) are written.
      const ok = await call(copies.slice(0, 3))
      expect({ status: ok.status, fields: Object.keys(ok.body.fields).sort() }).toEqual({ status: 200, fields: ['a', 'c0', 'c1', 'parent'] })
      // A copy from nowhere (through null, through a missing field) is still the patch's own refusal.
      for (const from of ['/fields/parent/x', '/nope/a/b']) {
        const res = await call([{ op: 'copy', from, path: '/fields/z' }])
        expect({ from, status: res.status, body: res.body }).toEqual({ from, status: 400, body: { error: 'invalid_patch', message: `The patch does not apply: OPERATION_FROM_UNRESOLVABLE at operation 0 (copy ${from} to /fields/z): the \`from\` path does not exist in the document.` } })
      }
      // A patch that replaces a large field with another as large is not counted twice past the limit.
      const swap = await call([{ op: 'replace', path: '/fields/a', value: 'z'.repeat(20 * 1024) }, { op: 'remove', path: '/fields/c0' }, { op: 'replace', path: '/fields/c1', value: 'w'.repeat(20 * 1024) }])
      expect(swap.status).toBe(200)
    } finally {
      own.close()
    }
  })

  test('applies an RFC 6902 patch', async () => {
    await ctx.call('POST', base, { body: page('pages/p1') })
    const res = await ctx.call('PATCH', `${base}?id=pages/p1`, { body: [{ op: 'add', path: '/locales/de', value: { title: 'D', slug: 'd' } }] })
    expect(res.status).toBe(200)
    expect(res.body.locales.de).toEqual({ title: 'D', slug: 'd' })
  })

  test('a patch that changes nothing (only `test`, a value replaced by itself) writes nothing: same ETag, If-Match still holds', async () => {
    await ctx.call('POST', base, { body: page('pages/noop') })
    const before = await ctx.call('GET', `${base}?id=pages/noop`)
    const etag = before.headers.get('etag')!
    for (const ops of [[{ op: 'test', path: '/locales/en/title', value: 'T' }], [{ op: 'replace', path: '/locales/en/title', value: 'T' }]]) {
      const res = await ctx.call('PATCH', `${base}?id=pages/noop`, { body: ops, headers: { 'if-match': etag } })
      expect({ status: res.status, etag: res.headers.get('etag'), body: res.body }).toEqual({ status: 200, etag, body: before.body })
    }
    // A draft patched to what it is stays as it is too; a missing draft is still created.
    const same = [{ op: 'test', path: '/locales/en/title', value: 'T' }]
    const draft = await ctx.call('PATCH', `${base}?id=pages/noop/draft`, { body: same })
    expect(draft.status).toBe(200)
    const again = await ctx.call('PATCH', `${base}?id=pages/noop/draft`, { body: same })
    expect({ status: again.status, etag: again.headers.get('etag') }).toEqual({ status: 200, etag: draft.headers.get('etag') })
    const stored = await ctx.call('GET', `${base}?id=pages/noop/draft`)
    expect({ status: stored.status, etag: stored.headers.get('etag') }).toEqual({ status: 200, etag: draft.headers.get('etag') })
    expect(stored.headers.get('etag')).not.toBe(etag) // the draft, not the canonical
    // A real change still writes.
    const changed = await ctx.call('PATCH', `${base}?id=pages/noop`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'U' }], headers: { 'if-match': etag } })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    // A live canonical needs ChangeLiveContent even for a patch that changes nothing (the rule does not depend on the patch).
    expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/noop'] } })).body[0].status).toBe(0)
    const translator = await ctx.call('PATCH', `${base}?id=pages/noop`, { token: TOKENS.translator, body: [{ op: 'test', path: '/locales/en/title', value: (await read('pages/noop')).locales.en.title }] })
    expect({ status: translator.status, error: translator.body.error }).toEqual({ status: 403, error: 'forbidden' })
  })

  for (const path of ['/__publishedBy', '/__publishedAt', '/__dirtyLocales', '/__dirtyLocales/0']) {
    for (const op of ['add', 'replace', 'remove']) {
      test(`${op} ${path} is refused with protected_field`, async () => {
        await ctx.call('POST', base, { body: page('pages/p2') })
        const before = await read('pages/p2')
        const res = await ctx.call('PATCH', `${base}?id=pages/p2`, { body: [{ op, path, value: 'mallory' }] })
        expect(res.status).toBe(400)
        expect(res.body).toEqual({ error: 'protected_field', message: expect.any(String) })
        expect(await read('pages/p2')).toEqual(before)
      })
    }
  }

  test('move or copy from a protected field is refused too', async () => {
    await ctx.call('POST', base, { body: page('pages/p3') })
    const res = await ctx.call('PATCH', `${base}?id=pages/p3`, { body: [{ op: 'copy', from: '/__publishedBy', path: '/locales/en/title' }] })
    expect(res.body.error).toBe('protected_field')
  })

  test('an operation that would change, remove or move the id is refused with protected_field and writes nothing; test and copy from it apply', async () => {
    await ctx.call('POST', base, { body: page('pages/named') })
    for (const id of ['pages/named', 'pages/named/draft']) {
      const before = await ctx.call('GET', `${base}?id=${enc(id)}`)
      for (const op of [
        { op: 'replace', path: '/id', value: 'pages/other' }, { op: 'replace', path: '/id', value: 'pages/named' }, { op: 'remove', path: '/id' },
        { op: 'add', path: '/id', value: 'pages/other' }, { op: 'move', from: '/id', path: '/fields/was' }, { op: 'copy', from: '/fields/parent', path: '/id' },
      ]) {
        const res = await ctx.call('PATCH', `${base}?id=${enc(id)}`, { body: [op] })
        expect({ id, op, status: res.status, body: res.body }).toEqual({ id, op, status: 400, body: { error: 'protected_field', message: expect.stringContaining('id') } })
      }
      const after = await ctx.call('GET', `${base}?id=${enc(id)}`)
      expect({ status: after.status, body: after.body, etag: after.headers.get('etag') }).toEqual({ status: before.status, body: before.body, etag: before.headers.get('etag') })
    }
    const res = await ctx.call('PATCH', `${base}?id=pages/named`, { body: [{ op: 'test', path: '/id', value: 'pages/named' }, { op: 'copy', from: '/id', path: '/fields/self' }] })
    expect({ status: res.status, id: res.body.id, self: res.body.fields.self }).toEqual({ status: 200, id: 'pages/named', self: 'pages/named' })
  })

  test('an operation on the root replaces every field, protected ones included: refused with protected_field', async () => {
    await ctx.call('POST', base, { body: page('pages/root') })
    await ctx.call('POST', base, { body: page('pages/root/draft', { en: { title: 'draft', slug: 's' } }) })
    const forged = { ...page('pages/root'), __publishedBy: 'evil', __publishedAt: '2020-01-01T00:00:00.0000000Z', __dirtyLocales: ['xx'] }
    const ops = [
      { op: 'replace', path: '', value: forged },
      { op: 'add', path: '', value: forged },
      { op: 'remove', path: '' },
      { op: 'copy', from: '/locales', path: '' },
      { op: 'move', from: '/fields', path: '' },
      { op: 'copy', from: '', path: '/fields/all' },
      { op: 'move', from: '', path: '/fields/all' },
    ]
    for (const id of ['pages/root', 'pages/root/draft']) {
      const before = await read(id)
      for (const op of ops) {
        const res = await ctx.call('PATCH', `${base}?id=${enc(id)}`, { body: [op] })
        expect({ id, op, status: res.status, body: res.body }).toEqual({ id, op, status: 400, body: { error: 'protected_field', message: expect.any(String) } })
      }
      expect(await read(id)).toEqual(before)
    }
  })

  test('a test of the root and nested paths still apply', async () => {
    await ctx.call('POST', base, { body: page('pages/root-test') })
    const res = await ctx.call('PATCH', `${base}?id=pages/root-test`, {
      body: [
        { op: 'test', path: '', value: page('pages/root-test') },
        { op: 'replace', path: '/locales/en/title', value: 'new' },
        { op: 'add', path: '/fields/__publishedBy', value: 'a field of its own' },
      ],
    })
    expect(res.status).toBe(200)
    expect(strip(res.body)).toEqual(page('pages/root-test', { en: { title: 'new', slug: 's' } }, { parent: 'pages/home', __publishedBy: 'a field of its own' }))
    const failing = await ctx.call('PATCH', `${base}?id=pages/root-test`, { body: [{ op: 'test', path: '', value: page('pages/root-test') }] })
    expect(failing.body.error).toBe('invalid_patch')
  })

  test('patching a missing draft creates it from the published canonical without the stamp', async () => {
    const res = await ctx.call('PATCH', `${base}?id=pages/home/draft`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'Home 2' }] })
    expect(res.status).toBe(200)
    expect(res.body.__publishedBy).toBeUndefined()
    expect(res.body.__publishedAt).toBeUndefined()
    expect(res.body).toMatchObject({ id: 'pages/home/draft', locales: { en: { title: 'Home 2', slug: '' } }, __dirtyLocales: ['en'] })
    expect((await read('pages/home')).__publishedBy).toBe('cli')
  })

  test('a patch that is not an array, is invalid, or does not apply is 400', async () => {
    await ctx.call('POST', base, { body: page('pages/p4') })
    const notArray = await ctx.call('PATCH', `${base}?id=pages/p4`, { body: { op: 'add' } })
    expect(notArray.status).toBe(400)
    const invalid = await ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'nope', path: '/x' }] })
    expect(invalid.body.error).toBe('invalid_patch')
    const failing = await ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'test', path: '/locales/en/title', value: 'other' }] })
    expect(failing.body).toEqual({ error: 'invalid_patch', message: 'The patch does not apply: TEST_OPERATION_FAILED at operation 0 (test /locales/en/title): the value at the path is not the one tested.' })
    // Which operation and path, in words as well as the library's code.
    const missing = await ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'test', path: '/id', value: 'pages/p4' }, { op: 'replace', path: '/locales/fr/title', value: 'x' }] })
    expect(missing.body).toEqual({ error: 'invalid_patch', message: 'The patch does not apply: OPERATION_PATH_UNRESOLVABLE at operation 1 (replace /locales/fr/title): the path does not exist in the document.' })
    // The prototype guard's TypeError is named for what it is, not by an internal exception name.
    for (const path of ['/__proto__/x', '/fields/__proto__', '/locales/__proto__']) {
      const proto = await ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'add', path, value: 1 }] })
      expect({ path, body: proto.body }).toEqual({ path, body: { error: 'invalid_patch', message: 'The patch does not apply: `__proto__`, `constructor` and `prototype` cannot be patched.' } })
    }
    // Array indexes as RFC 6901 writes them, checked before the library (which reads them with
    // `~~`: 2^31 and up wrapped round, an `add` went in first, a path reached element 0): refused, nothing written.
    await ctx.call('POST', base, { body: page('pages/arr', undefined, { parent: 'pages/home', arr: ['a', 'b', 'c'], objs: [{ x: 1 }] }) })
    const before = await read('pages/arr')
    const refusals: [unknown, string][] = [
      [{ op: 'add', path: '/fields/arr/2147483648', value: 'Y' }, 'OPERATION_VALUE_OUT_OF_BOUNDS at operation 0 (add /fields/arr/2147483648): the array index is past the end of the array'],
      [{ op: 'add', path: '/fields/arr/4294967294', value: 'Y' }, 'OPERATION_VALUE_OUT_OF_BOUNDS at operation 0 (add /fields/arr/4294967294): the array index is past the end of the array'],
      [{ op: 'add', path: '/fields/arr/01', value: 'Y' }, 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX at operation 0 (add /fields/arr/01): an array index must be a whole number'],
      [{ op: 'add', path: '/fields/arr/', value: 'Y' }, 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX at operation 0 (add /fields/arr/): an array index must be a whole number'],
      [{ op: 'replace', path: '/fields/objs/4294967296/x', value: 2 }, 'OPERATION_PATH_UNRESOLVABLE at operation 0 (replace /fields/objs/4294967296/x): the path does not exist in the document'],
      [{ op: 'copy', from: '/fields/arr/4294967296', path: '/fields/y' }, 'OPERATION_FROM_UNRESOLVABLE at operation 0 (copy /fields/arr/4294967296 to /fields/y): the `from` path does not exist in the document'],
      [{ op: 'copy', from: '/fields/arr/4294967296', path: '/fields/arr/0' }, 'OPERATION_FROM_UNRESOLVABLE at operation 0 (copy /fields/arr/4294967296 to /fields/arr/0): the `from` path does not exist in the document'],
      [{ op: 'move', from: '/fields/arr', path: '/fields/arr/0' }, 'OPERATION_MOVE_INTO_ITSELF at operation 0 (move /fields/arr to /fields/arr/0): a value cannot be moved into one of its own members'],
    ]
    for (const [op, message] of refusals) {
      const res = await ctx.call('PATCH', `${base}?id=pages/arr`, { body: [op] })
      expect({ op, status: res.status, body: res.body }).toEqual({ op, status: 400, body: { error: 'invalid_patch', message: `The patch does not apply: ${message}.` } })
    }
    expect(await read('pages/arr')).toEqual(before)
    // In range they still apply: the end (`-` or the length), a path through an element.
    const fine = await ctx.call('PATCH', `${base}?id=pages/arr`, { body: [{ op: 'add', path: '/fields/arr/3', value: 'd' }, { op: 'add', path: '/fields/arr/-', value: 'e' }, { op: 'replace', path: '/fields/objs/0/x', value: 2 }] })
    expect(fine.status).toBe(200)
    expect(fine.body.fields).toMatchObject({ arr: ['a', 'b', 'c', 'd', 'e'], objs: [{ x: 2 }] })
    const breaking = await ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'replace', path: '/locales', value: 5 }] })
    expect(breaking.body.error).toBe('invalid_document')
    expect((await ctx.call('PATCH', `${base}?id=pages/none`, { body: [] })).status).toBe(404)
  })
})

describe('lifecycle', () => {
  test('copy removes the stamp', async () => {
    const res = await ctx.call('POST', `/content/copy/${TEAM}`, { body: { ids: ['pages/home'] } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([{ id: 'pages/home', status: 0, document: expect.objectContaining({ id: 'pages/home-copy' }) }])
    const copy = await read('pages/home-copy')
    expect(copy.__publishedBy).toBeUndefined()
    expect(copy.__publishedAt).toBeUndefined()
    expect(copy['@metadata'].published).toBe(false)
  })

  test('copy takes the first id no document uses in any form: a draft-only document keeps its draft', async () => {
    await ctx.call('POST', base, { body: page('pages/cp') })
    expect((await ctx.call('POST', base, { body: page('pages/cp-copy/draft', { en: { title: 'Draft only', slug: 'other' } }) })).status).toBe(200)
    const res = await ctx.call('POST', `/content/copy/${TEAM}`, { body: { ids: ['pages/cp'] } })
    expect(res.body).toEqual([{ id: 'pages/cp', status: 0, document: expect.objectContaining({ id: 'pages/cp-copy-2' }) }])
    expect((await read('pages/cp-copy/draft')).locales.en.title).toBe('Draft only')
    expect((await ctx.call('GET', `${base}?id=pages/cp-copy`)).status).toBe(404) // still no canonical of its own
  })

  test('unpublish and archive make every locale of an existing draft dirty: nothing of it is live any more', async () => {
    for (const op of ['unpublish', 'archive']) {
      const id = `pages/takedown-${op}`
      await ctx.call('POST', base, { body: page(id, { en: { title: 'E', slug: `t-${op}` }, de: { title: 'D', slug: `t-${op}-de` } }) })
      await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
      await ctx.call('PATCH', `${base}?id=${id}/draft`, { body: [{ op: 'replace', path: '/locales/de/title', value: 'D2' }] })
      expect((await read(`${id}/draft`)).__dirtyLocales).toEqual(['de'])
      expect((await ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id] } })).body[0].status).toBe(0)
      expect({ op, dirty: (await read(`${id}/draft`)).__dirtyLocales }).toEqual({ op, dirty: ['de', 'en'] })
    }
  })

  test('archiving or unpublishing again leaves the canonical as it is: the same ETag', async () => {
    for (const op of ['archive', 'unpublish']) {
      const id = `pages/twice-${op}`
      await ctx.call('POST', base, { body: page(id, { en: { title: 'T', slug: `twice-${op}` } }) })
      await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
      const first = await ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id] } })
      const again = await ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id, id] } })
      const cv = (r: { body: { document: { '@metadata': { '@change-vector': string } } }[] }, i: number) => r.body[i]!.document['@metadata']['@change-vector']
      expect({ op, statuses: again.body.map((i: { status: number }) => i.status), same: [cv(again, 0), cv(again, 1)] }).toEqual({ op, statuses: [0, 0], same: [cv(first, 0), cv(first, 0)] })
    }
  })

  test('unpublish moves the live content to a draft without the stamp', async () => {
    await ctx.call('POST', base, { body: page('pages/un') })
    await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/un'] } })
    const res = await ctx.call('POST', `/content/unpublish/${TEAM}`, { body: { ids: ['pages/un'] } })
    expect(res.body[0].status).toBe(0)
    const draft = await read('pages/un/draft')
    expect(draft.__publishedAt).toBeUndefined()
    expect(draft.locales).toEqual({ en: { title: 'T', slug: 's' } })
    const canonical = await read('pages/un')
    expect(canonical['@metadata'].published).toBe(false)
    expect(canonical.__publishedAt).toBeUndefined()
  })

  test('delete is a soft delete: reads are 404, revisions stay', async () => {
    await ctx.call('POST', base, { body: page('pages/del') })
    await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/del'] } })
    const res = await ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/del', 'pages/missing', 'pages/del/draft'] } })
    expect(res.body).toEqual([
      { id: 'pages/del', status: 0 },
      { id: 'pages/missing', status: 1, reason: 'Document not found.' },
      // spec.md "Batch result item": `id` is the canonical id, also when a sibling was given.
      { id: 'pages/del', status: 1, reason: expect.stringContaining('sibling') },
    ])
    expect((await ctx.call('GET', `${base}?id=pages/del`)).status).toBe(404)
    expect(countRevisions(ctx.db, TEAM, 'pages/del')).toBe(1)
  })

  test('a document created again at the id of an archived, then deleted one is new: not archived, not published; the id keeps its versions', async () => {
    await ctx.call('POST', base, { body: page('pages/again') })
    await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/again'] } })
    for (const op of ['archive', 'delete']) expect((await ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: ['pages/again'] } })).body[0].status).toBe(0)
    const res = await ctx.call('POST', base, { body: page('pages/again', { en: { title: 'New', slug: 'again' } }) })
    expect(res.status).toBe(200)
    expect([res.body['@metadata'].archived, res.body['@metadata'].published]).toEqual([false, false])
    const list = await ctx.call('GET', `/content/list/${TEAM}?after=pages/agaim&pageSize=1`)
    expect(list.body.rows[0]).toMatchObject({ id: 'pages/again', published: false, archived: false, draft: false })
    expect((await ctx.call('GET', `/content/versions/${TEAM}?id=pages/again`)).body.rows).toHaveLength(1)
  })

  test('a sibling id is refused with the canonical id as the item id; other refusals echo the id', async () => {
    await ctx.call('POST', base, { body: page('pages/sib') })
    const ids = ['pages/sib/draft', 'pages/sib/scheduled', 'pages/sib/snapshot/AAAAAAAAAAAAAAAAAAAAAA', 'pages/sib/activity', 'pages/nope', 'pages/a/draft/draft']
    const sibling = 'Expected a canonical document id, not a sibling id.'
    for (const op of ['archive', 'unpublish', 'delete', 'copy', 'discard-draft', 'unschedule']) {
      const res = await ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids } })
      expect({ op, body: res.body }).toEqual({
        op,
        body: [
          { id: 'pages/sib', status: 1, reason: sibling },
          { id: 'pages/sib', status: 1, reason: sibling },
          { id: 'pages/sib', status: 1, reason: sibling },
          { id: 'pages/sib/activity', status: 1, reason: sibling },
          { id: 'pages/nope', status: 1, reason: 'Document not found.' },
          { id: 'pages/a/draft/draft', status: 1, reason: sibling },
        ],
      })
    }
    expect((await read('pages/sib'))['@metadata']).toMatchObject({ published: false, archived: false })
  })

  test('discard-draft removes the draft, and refuses when there is none', async () => {
    await ctx.call('POST', base, { body: page('pages/dd/draft') })
    await ctx.call('POST', base, { body: page('pages/dd') })
    const res = await ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/dd', 'pages/dd'] } })
    expect(res.body).toEqual([{ id: 'pages/dd', status: 0 }, { id: 'pages/dd', status: 1, reason: 'There is no draft to discard.' }])
  })
})

describe('a document that so far only has a draft', () => {
  test('discard-draft discards the draft; a second discard finds no document', async () => {
    await ctx.call('POST', base, { body: page('pages/dr2/draft') })
    const res = await ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/dr2', 'pages/dr2'] } })
    expect(res.body).toEqual([{ id: 'pages/dr2', status: 0 }, { id: 'pages/dr2', status: 1, reason: 'Document not found.' }])
    expect((await ctx.call('GET', `${base}?id=pages/dr2/draft`)).status).toBe(404)
  })

  test('discard-draft refuses to leave a pending schedule without its document (it would still publish, unseen by history and out of reach of delete); unschedule first, then it discards', async () => {
    await ctx.call('POST', base, { body: page('pages/ghost/draft') })
    const publishAt = new Date(Date.now() + 3_600_000).toISOString()
    expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/ghost', publishAt } })).status).toBe(201)
    const refused = await ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/ghost'] } })
    expect(refused.body).toEqual([{ id: 'pages/ghost', status: 1, reason: 'The document has only a draft and a scheduled publish: unschedule it first, or delete the document.' }])
    expect((await ctx.call('GET', `/content/history/${TEAM}?id=pages/ghost`)).body.scheduled).toMatchObject({ id: 'pages/ghost/scheduled', publishAt })
    expect((await ctx.call('POST', `/content/unschedule/${TEAM}`, { body: { ids: ['pages/ghost'] } })).body).toEqual([{ id: 'pages/ghost', status: 0 }])
    expect((await ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/ghost'] } })).body).toEqual([{ id: 'pages/ghost', status: 0 }])
    expect(dueSchedules(ctx.db, Date.now() + 7_200_000).filter((s) => s.documentId === 'pages/ghost')).toEqual([])
  })

  test('publishAt is RFC 3339 with its offset: a local time or a prose date is 400 invalid_body and schedules nothing', async () => {
    await ctx.call('POST', base, { body: page('pages/tz/draft') })
    for (const publishAt of ['2099-01-01T09:00:00', 'Jan 1 2099', '2099-01-01 09:00:00Z']) {
      const res = await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/tz', publishAt } })
      expect({ publishAt, status: res.status, error: res.body.error }).toEqual({ publishAt, status: 400, error: 'invalid_body' })
    }
    expect((await ctx.call('GET', `${base}?id=pages/tz/scheduled`)).status).toBe(404)
    for (const publishAt of ['2099-01-01T09:00:00+02:00', '2099-01-01T09:00Z', '2099-01-01']) {
      expect({ publishAt, status: (await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/tz', publishAt } })).status }).toEqual({ publishAt, status: 201 })
    }
  })

  test('copy takes the draft; unpublish and archive refuse, saying there is nothing live (not "not found")', async () => {
    await ctx.call('POST', base, { body: page('pages/dr4/draft', { en: { title: 'Idea', slug: 'idea' } }) })
    const copied = await ctx.call('POST', `/content/copy/${TEAM}`, { body: { ids: ['pages/dr4'] } })
    expect(copied.body).toEqual([{ id: 'pages/dr4', status: 0, document: expect.objectContaining({ id: 'pages/dr4-copy', locales: { en: { title: 'Idea', slug: 'idea' } } }) }])
    const copy = await read('pages/dr4-copy')
    expect({ published: copy['@metadata'].published, dirty: copy.__dirtyLocales }).toEqual({ published: false, dirty: undefined })
    for (const op of ['unpublish', 'archive']) {
      const res = await ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: ['pages/dr4'] } })
      expect({ op, body: res.body }).toEqual({ op, body: [{ id: 'pages/dr4', status: 1, reason: `The document has only a draft: nothing of it is live to ${op}. Discard the draft or delete the document to remove it.` }] })
    }
    expect((await read('pages/dr4/draft')).locales.en.title).toBe('Idea')
  })

  test('delete removes the draft and its schedule; nothing else remains', async () => {
    await ctx.call('POST', base, { body: page('pages/dr3/draft') })
    const publishAt = new Date(Date.now() + 3_600_000).toISOString()
    expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/dr3', publishAt } })).status).toBe(201)
    const res = await ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/dr3', 'pages/dr3'] } })
    expect(res.body).toEqual([{ id: 'pages/dr3', status: 0 }, { id: 'pages/dr3', status: 1, reason: 'Document not found.' }])
    for (const id of ['pages/dr3', 'pages/dr3/draft', 'pages/dr3/scheduled']) {
      expect({ id, status: (await ctx.call('GET', `${base}?id=${id}`)).status }).toEqual({ id, status: 404 })
    }
    expect((await ctx.call('GET', `/content/history/${TEAM}?id=pages/dr3`)).status).toBe(404)
  })

  test('unschedule cancels a scheduled publish (the draft stays), refuses when there is none, and needs ChangeLiveContent as scheduling does', async () => {
    await ctx.call('POST', base, { body: page('pages/us/draft') })
    const publishAt = new Date(Date.now() + 3_600_000).toISOString()
    expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/us', publishAt } })).status).toBe(201)
    const denied = await ctx.call('POST', `/content/unschedule/${TEAM}`, { token: TOKENS.translator, body: { ids: ['pages/us'] } })
    expect({ status: denied.status, error: denied.body.error }).toEqual({ status: 403, error: 'forbidden' })
    const res = await ctx.call('POST', `/content/unschedule/${TEAM}`, { body: { ids: ['pages/us', 'pages/us', 'pages/none'] } })
    expect(res.body).toEqual([
      { id: 'pages/us', status: 0 },
      { id: 'pages/us', status: 1, reason: 'There is no scheduled publish to cancel.' },
      { id: 'pages/none', status: 1, reason: 'Document not found.' },
    ])
    expect((await ctx.call('GET', `${base}?id=pages/us/scheduled`)).status).toBe(404)
    expect((await read('pages/us/draft')).locales).toEqual(page('pages/us/draft').locales)
    expect((await ctx.call('GET', `/content/history/${TEAM}?id=pages/us`)).body.scheduled).toBeNull()
    expect(dueSchedules(ctx.db, Date.now() + 7_200_000).filter((s) => s.documentId === 'pages/us')).toEqual([]) // the dispatcher finds nothing to publish
  })

  test('archive cancels a pending scheduled publish (it would put the document back on the site); unpublish keeps it', async () => {
    const publishAt = new Date(Date.now() + 3_600_000).toISOString()
    for (const op of ['archive', 'unpublish']) {
      const id = `pages/sched-${op}`
      await ctx.call('POST', base, { body: page(id) })
      await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
      await ctx.call('POST', base, { body: page(`${id}/draft`, { en: { title: 'Next', slug: 's' } }) })
      expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id, publishAt } })).status).toBe(201)
      expect((await ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id] } })).body[0].status).toBe(0)
      const scheduled = (await ctx.call('GET', `/content/history/${TEAM}?id=${id}`)).body.scheduled
      expect({ op, kept: scheduled !== null, copy: (await ctx.call('GET', `${base}?id=${id}/scheduled`)).status }).toEqual(
        op === 'archive' ? { op, kept: false, copy: 404 } : { op, kept: true, copy: 200 },
      )
    }
  })

  test('a draft written after the canonical was soft-deleted can be discarded or deleted too', async () => {
    for (const op of ['discard-draft', 'delete']) {
      const id = `pages/reborn-${op}`
      await ctx.call('POST', base, { body: page(id) })
      await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
      await ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: [id] } })
      await ctx.call('POST', base, { body: page(`${id}/draft`) })
      const res = await ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id] } })
      expect({ op, body: res.body }).toEqual({ op, body: [{ id, status: 0 }] })
      expect((await ctx.call('GET', `${base}?id=${id}/draft`)).status).toBe(404)
      expect(countRevisions(ctx.db, TEAM, id)).toBe(1)
    }
  })
})

describe('concurrent writers', () => {
  test('parallel conditional writes on one change vector: exactly one lands, the rest get 409', async () => {
    const first = await ctx.call('POST', base, { body: page('pages/race') })
    const cv = first.body['@metadata']['@change-vector']
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        ctx.call('POST', base, { body: page('pages/race', { en: { title: `w${i}`, slug: 's' } }), headers: { 'if-match': `"${cv}"` } }),
      ),
    )
    const winners = results.filter((r) => r.status === 200)
    expect(winners).toHaveLength(1)
    expect(results.filter((r) => r.status === 409)).toHaveLength(11)
    expect((await read('pages/race')).locales.en.title).toBe(winners[0]!.body.locales.en.title)
  })

  test('the activity document keeps the newest 500 entries', async () => {
    await ctx.call('POST', base, { body: page('pages/busy') })
    for (let i = 0; i < 260; i++) {
      await ctx.call('POST', base, { body: page('pages/busy/draft', { en: { title: `e${i}`, slug: 's' }, de: { title: `d${i}`, slug: 's' } }) })
    }
    const entries = (await read('pages/busy/activity')).entries
    expect(entries).toHaveLength(500)
    expect(entries.slice(-2).map((e: { kind: string; locale: string }) => `${e.kind}:${e.locale}`)).toEqual(['EDIT:de', 'EDIT:en'])
  })
})

describe('a locale removed from the team', () => {
  test('stays in documents as it was: they remain editable in their other locales, the removed one cannot be changed', async () => {
    const own = await createTestContext()
    try {
      const patch = (id: string, ops: unknown[]) => own.call('PATCH', `${base}?id=${enc(id)}`, { body: ops, headers: { 'content-type': 'application/json-patch+json' } })
      await own.call('POST', base, { body: page('pages/about', { en: { title: 'About', slug: 'about' }, fr: { title: 'À propos', slug: 'a-propos' } }) })
      expect((await own.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/about'] } })).body[0].status).toBe(0)
      expect((await own.call('PUT', `/teams/${TEAM}/locales`, { body: { locales: ['en', 'de'], defaultLocale: 'en' } })).status).toBe(200)

      // Editing English works on the draft, on the published canonical, and as a whole-document POST.
      const draft = await patch('pages/about/draft', [{ op: 'replace', path: '/locales/en/title', value: 'About us' }])
      expect(draft.status).toBe(200)
      expect(draft.body.locales).toEqual({ en: { title: 'About us', slug: 'about' }, fr: { title: 'À propos', slug: 'a-propos' } })
      expect(draft.body.__dirtyLocales).toEqual(['en'])
      expect((await patch('pages/about', [{ op: 'replace', path: '/locales/en/title', value: 'About' }])).status).toBe(200)
      const whole = await own.call('POST', base, { body: page('pages/about/draft', { en: { title: 'About!', slug: 'about' }, fr: { title: 'À propos', slug: 'a-propos' } }) })
      expect(whole.status).toBe(200)

      // Changing or adding the removed locale is refused, naming it; nothing is written.
      const cv = whole.body['@metadata']['@change-vector']
      await own.call('POST', base, { body: page('pages/english') })
      for (const res of [
        await patch('pages/about/draft', [{ op: 'replace', path: '/locales/fr/title', value: 'Nouveau' }]),
        await patch('pages/english', [{ op: 'add', path: '/locales/fr', value: { title: 'x', slug: 'x' } }]),
        await own.call('POST', base, { body: page('pages/new', { en: { title: 'N', slug: 'n' }, fr: { title: 'N', slug: 'n' } }) }),
      ]) {
        expect(res.status).toBe(400)
        expect(res.body).toEqual({ error: 'unknown_locale', message: 'Unknown locale(s): fr. A locale removed from the team is kept as the document holds it; it cannot be added or changed.' })
      }
      expect((await own.call('GET', `${base}?id=pages/english`)).body.locales).toEqual({ en: { title: 'T', slug: 's' } })
      expect((await own.call('GET', `${base}?id=pages/about/draft`)).body['@metadata']['@change-vector']).toBe(cv)
      expect((await own.call('GET', `${base}?id=pages/new`)).status).toBe(404)

      // Its content goes live with the rest, but the event names only the team's locales.
      await own.call('POST', `/teams/${TEAM}/webhooks`, { body: { label: 'site', provider: 'custom', target: 'https://example.com/hook' } })
      expect((await own.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/about'] } })).body[0].document.locales.fr).toEqual({ title: 'À propos', slug: 'a-propos' })
      const event = JSON.parse((own.db.$client.query('SELECT payload FROM outbox_events').get() as { payload: string }).payload)
      expect({ locales: event.locales, urls: event.urls }).toEqual({ locales: ['en'], urls: { en: '/about' } })

      // Removing it is an edit like any other; it cannot come back after that.
      const dropped = await patch('pages/about/draft', [{ op: 'remove', path: '/locales/fr' }])
      expect(dropped.body.locales).toEqual({ en: { title: 'About!', slug: 'about' } })
      expect((await own.call('POST', base, { body: page('pages/about/draft', { en: { title: 'About!', slug: 'about' }, fr: { title: 'À propos', slug: 'a-propos' } }) })).body.error).toBe('unknown_locale')
    } finally {
      own.close()
    }
  })
})
