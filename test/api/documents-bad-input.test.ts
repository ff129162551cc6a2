import { editBody } from '../rows'
import { describe, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM } from '../helpers'
import { base, page, documentsFixture } from './documents-fixture'

const fx = documentsFixture()
const { read } = fx

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
      const res = await fx.ctx.call('POST', base, { body })
      expect(res.status).toBe(status)
      expect(res.body).toEqual({ error: code, message: expect.any(String) })
      expect((await fx.ctx.call('GET', `${base}?id=pages/x`)).status).toBe(404)
    })
  }

  test('a page slug that is not one path segment is 400 invalid_slug; unicode and inner spaces are fine', async () => {
    // `//evil.example` would be the page's path, and `new URL(path, site)` reads that as another host.
    for (const slug of ['/evil.example', 'a/b', 'a?b', 'a#b', '100%', 'a\\b', '.', '..', ' lead', 'trail ', 'nul\u0000', 'line\nbreak', 'x'.repeat(201)]) {
      const res = await fx.ctx.call('POST', base, { body: page('pages/x', { en: { title: 'T', slug } }) })
      expect({ slug, status: res.status, body: res.body }).toEqual({ slug, status: 400, body: { error: 'invalid_slug', message: expect.stringContaining('en') } })
    }
    expect((await fx.ctx.call('GET', `${base}?id=pages/x`)).status).toBe(404)
    for (const slug of ['über-uns', 'café menu', '', 'x'.repeat(200)]) {
      expect({ slug, status: (await fx.ctx.call('POST', base, { body: page(`pages/ok-${slug.length}`, { en: { title: 'T', slug } }) })).status }).toEqual({ slug, status: 200 })
    }
    // A content type without URLs has no paths: its `slug` is just a field.
    const product = { id: 'products/x', contentType: 'product', fields: {}, locales: { en: { name: 'P', slug: '/whatever?' } } }
    expect((await fx.ctx.call('POST', base, { body: product })).status).toBe(200)
  })

  test('a query parameter given twice is 400 invalid_body on every route, and nothing is written', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/twice') })
    const before = await read('pages/twice')
    const patch = [{ op: 'add', path: '/fields/sku', value: 'x' }]
    for (const [method, url, body] of [
      ['PATCH', `${base}?id=pages/twice&id=pages/home`, patch],
      ['PATCH', `${base}?id=pages/twice&id=pages/twice`, patch],
      ['GET', `${base}?id=pages/home&id=pages/twice`, undefined],
      ['GET', `/content/versions/${TEAM}?id=pages/home&version=a&version=b`, undefined],
    ] as const) {
      const res = await fx.ctx.call(method, url, { body, headers: method === 'PATCH' ? { 'content-type': 'application/json-patch+json' } : {} })
      expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 400, body: { error: 'invalid_body', message: `A query parameter may be given once; repeated: ${url.includes('version=a') ? 'version' : 'id'}.` } })
    }
    expect(await read('pages/twice')).toEqual(before)
    expect((await read('pages/home')).fields).toEqual({ parent: null })
    // Still after authentication: a caller without a token learns nothing.
    expect((await fx.ctx.call('GET', `${base}?id=a&id=b`, { token: null })).status).toBe(401)
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
      await own.close()
    }
  })

  test('a page cannot be its own ancestor: its own parent, or a parent below it, is 400 invalid_body and nothing is written', async () => {
    const tree = (id: string, parent: string | null) => page(id, { en: { title: 'T', slug: id.split('/').pop()! } }, { parent })
    for (const [id, parent] of [['pages/cy-a', 'pages/home'], ['pages/cy-b', 'pages/cy-a'], ['pages/cy-c', 'pages/cy-b']] as const) {
      expect((await fx.ctx.call('POST', base, { body: tree(id, parent) })).status).toBe(200)
    }
    const own = await fx.ctx.call('POST', base, { body: tree('pages/cy-self', 'pages/cy-self') })
    expect({ status: own.status, body: own.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: '`fields.parent` would make "pages/cy-self" its own ancestor (its own parent): a page in a cycle has no URL.' } })
    expect((await fx.ctx.call('GET', `${base}?id=pages/cy-self`)).status).toBe(404)
    const before = await read('pages/cy-a')
    for (const res of [
      await fx.ctx.call('POST', base, { body: tree('pages/cy-a', 'pages/cy-c') }),
      await fx.ctx.call('POST', base, { body: tree('pages/cy-a/draft', 'pages/cy-b') }),
      await fx.ctx.call('PATCH', `${base}?id=pages/cy-a`, { body: [{ op: 'replace', path: '/fields/parent', value: 'pages/cy-c' }], headers: { 'content-type': 'application/json-patch+json' } }),
    ]) expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: '`fields.parent` would make "pages/cy-a" its own ancestor (through its parents): a page in a cycle has no URL.' } })
    expect(await read('pages/cy-a')).toEqual(before)
    expect((await fx.ctx.call('GET', `${base}?id=pages/cy-a/draft`)).status).toBe(404)
    // Moving a page elsewhere in the tree, or under a parent whose own chain is broken, is fine.
    expect((await fx.ctx.call('POST', base, { body: tree('pages/cy-c', 'pages/cy-a') })).status).toBe(200)
    expect((await fx.ctx.call('POST', base, { body: tree('pages/cy-c', 'pages/nowhere') })).status).toBe(200)
    // A page stored in a cycle before the rule keeps its parent and stays editable; changing the parent is checked.
    expect((await fx.ctx.call('POST', base, { body: tree('pages/cy-c', 'pages/cy-a') })).status).toBe(200)
    await editBody(fx.ctx.db, TEAM, 'pages/cy-a', (b) => { b.fields.parent = 'pages/cy-c' })
    expect((await fx.ctx.call('PATCH', `${base}?id=pages/cy-a`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'Still editable' }], headers: { 'content-type': 'application/json-patch+json' } })).status).toBe(200)
    expect((await fx.ctx.call('POST', base, { body: page('pages/cy-a/draft', { en: { title: 'Draft', slug: 'cy-a' } }, { parent: 'pages/cy-c' }) })).status).toBe(200)
    expect((await fx.ctx.call('POST', base, { body: tree('pages/cy-a', 'pages/cy-b') })).status).toBe(400)
  })

  test('unknown locales are named back at most five, each cut to 32 characters', async () => {
    const locales = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`x${i}${'y'.repeat(200)}`, { title: 'T' }]))
    const res = await fx.ctx.call('POST', base, { body: page('pages/many', locales) })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('unknown_locale')
    expect(res.body.message).toBe(`Unknown locale(s): ${['x0', 'x1', 'x2', 'x3', 'x4'].map((p) => `${p}${'y'.repeat(32 - p.length)}...`).join(', ')} and 145 more. A locale removed from the team is kept as the document holds it; it cannot be added or changed.`)
  })

  test('a page slug that is not a string is 400 invalid_slug and a parent that is not an id 400 invalid_body; null means none', async () => {
    // A number had been stored and then read as "no slug": the publish event claimed a complete, empty URL list.
    for (const slug of [123, true, ['a'], { x: 1 }]) {
      const res = await fx.ctx.call('POST', base, { body: page('pages/typed', { en: { title: 'T', slug } }) })
      expect({ slug, status: res.status, error: res.body.error }).toEqual({ slug, status: 400, error: 'invalid_slug' })
    }
    // Nor a string that names no page: a sibling, a relative path, an over-long id.
    for (const parent of [{ x: 1 }, 7, ['pages/home'], false, 'pages/home/draft', 'pages/home/snapshot/t', '../x', 'pages//home', 'p'.repeat(481)]) {
      const res = await fx.ctx.call('POST', base, { body: page('pages/typed', undefined, { parent }) })
      expect({ parent, status: res.status, body: res.body }).toEqual({ parent, status: 400, body: { error: 'invalid_body', message: '`fields.parent` must be the canonical id of the parent page, or null (or empty) for a root page.' } })
    }
    expect((await fx.ctx.call('GET', `${base}?id=pages/typed`)).status).toBe(404)
    expect((await fx.ctx.call('POST', base, { body: page('pages/typed', { en: { title: 'T', slug: null } }, { parent: null }) })).status).toBe(200)
    // The same checks hold for a JSON Patch.
    const patched = await fx.ctx.call('PATCH', `${base}?id=pages/typed`, { body: [{ op: 'replace', path: '/locales/en/slug', value: 5 }] })
    expect({ status: patched.status, error: patched.body.error }).toEqual({ status: 400, error: 'invalid_slug' })
  })

  test('an oversized body is 413', async () => {
    const big = page('pages/x', { en: { title: 'x'.repeat(1_100_000) } })
    const res = await fx.ctx.call('POST', base, { body: big })
    expect(res.status).toBe(413)
    expect(res.body.error).toBe('payload_too_large')
    expect((await fx.ctx.call('GET', `${base}?id=pages/x`)).status).toBe(404)
  })

  test('a unicode id round-trips', async () => {
    const id = 'pages/über-уníçødé-页面-🚀'
    expect((await fx.ctx.call('POST', base, { body: page(id) })).status).toBe(200)
    expect((await fx.ctx.call('GET', `${base}?id=${enc(id)}`)).body.id).toBe(id)
  })

  test('reading without id is 400 missing_id, an unknown or huge id is 404', async () => {
    expect((await fx.ctx.call('GET', base)).body.error).toBe('missing_id')
    expect((await fx.ctx.call('GET', `${base}?id=nope`)).status).toBe(404)
    const huge = await fx.ctx.call('GET', `${base}?id=${'x'.repeat(10_000)}`)
    expect(huge.status).toBe(404)
    expect(huge.body.error).toBe('not_found')
  })
})
