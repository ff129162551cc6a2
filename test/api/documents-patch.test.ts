import { describe, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM, TOKENS } from '../helpers'
import { base, page, strip, documentsFixture } from './documents-fixture'

const fx = documentsFixture()
const { read } = fx

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
      await own.close()
    }
  })

  test('applies an RFC 6902 patch', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/p1') })
    const res = await fx.ctx.call('PATCH', `${base}?id=pages/p1`, { body: [{ op: 'add', path: '/locales/de', value: { title: 'D', slug: 'd' } }] })
    expect(res.status).toBe(200)
    expect(res.body.locales.de).toEqual({ title: 'D', slug: 'd' })
  })

  test('a patch that changes nothing (only `test`, a value replaced by itself) writes nothing: same ETag, If-Match still holds', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/noop') })
    const before = await fx.ctx.call('GET', `${base}?id=pages/noop`)
    const etag = before.headers.get('etag')!
    for (const ops of [[{ op: 'test', path: '/locales/en/title', value: 'T' }], [{ op: 'replace', path: '/locales/en/title', value: 'T' }]]) {
      const res = await fx.ctx.call('PATCH', `${base}?id=pages/noop`, { body: ops, headers: { 'if-match': etag } })
      expect({ status: res.status, etag: res.headers.get('etag'), body: res.body }).toEqual({ status: 200, etag, body: before.body })
    }
    // A draft patched to what it is stays as it is too; a missing draft is still created.
    const same = [{ op: 'test', path: '/locales/en/title', value: 'T' }]
    const draft = await fx.ctx.call('PATCH', `${base}?id=pages/noop/draft`, { body: same })
    expect(draft.status).toBe(200)
    const again = await fx.ctx.call('PATCH', `${base}?id=pages/noop/draft`, { body: same })
    expect({ status: again.status, etag: again.headers.get('etag') }).toEqual({ status: 200, etag: draft.headers.get('etag') })
    const stored = await fx.ctx.call('GET', `${base}?id=pages/noop/draft`)
    expect({ status: stored.status, etag: stored.headers.get('etag') }).toEqual({ status: 200, etag: draft.headers.get('etag') })
    expect(stored.headers.get('etag')).not.toBe(etag) // the draft, not the canonical
    // A real change still writes.
    const changed = await fx.ctx.call('PATCH', `${base}?id=pages/noop`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'U' }], headers: { 'if-match': etag } })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    // A live canonical needs ChangeLiveContent even for a patch that changes nothing (the rule does not depend on the patch).
    expect((await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/noop'] } })).body[0].status).toBe(0)
    const translator = await fx.ctx.call('PATCH', `${base}?id=pages/noop`, { token: TOKENS.translator, body: [{ op: 'test', path: '/locales/en/title', value: (await read('pages/noop')).locales.en.title }] })
    expect({ status: translator.status, error: translator.body.error }).toEqual({ status: 403, error: 'forbidden' })
  })

  for (const path of ['/__publishedBy', '/__publishedAt', '/__dirtyLocales', '/__dirtyLocales/0']) {
    for (const op of ['add', 'replace', 'remove']) {
      test(`${op} ${path} is refused with protected_field`, async () => {
        await fx.ctx.call('POST', base, { body: page('pages/p2') })
        const before = await read('pages/p2')
        const res = await fx.ctx.call('PATCH', `${base}?id=pages/p2`, { body: [{ op, path, value: 'mallory' }] })
        expect(res.status).toBe(400)
        expect(res.body).toEqual({ error: 'protected_field', message: expect.any(String) })
        expect(await read('pages/p2')).toEqual(before)
      })
    }
  }

  test('move or copy from a protected field is refused too', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/p3') })
    const res = await fx.ctx.call('PATCH', `${base}?id=pages/p3`, { body: [{ op: 'copy', from: '/__publishedBy', path: '/locales/en/title' }] })
    expect(res.body.error).toBe('protected_field')
  })

  test('an operation that would change, remove or move the id is refused with protected_field and writes nothing; test and copy from it apply', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/named') })
    for (const id of ['pages/named', 'pages/named/draft']) {
      const before = await fx.ctx.call('GET', `${base}?id=${enc(id)}`)
      for (const op of [
        { op: 'replace', path: '/id', value: 'pages/other' }, { op: 'replace', path: '/id', value: 'pages/named' }, { op: 'remove', path: '/id' },
        { op: 'add', path: '/id', value: 'pages/other' }, { op: 'move', from: '/id', path: '/fields/was' }, { op: 'copy', from: '/fields/parent', path: '/id' },
      ]) {
        const res = await fx.ctx.call('PATCH', `${base}?id=${enc(id)}`, { body: [op] })
        expect({ id, op, status: res.status, body: res.body }).toEqual({ id, op, status: 400, body: { error: 'protected_field', message: expect.stringContaining('id') } })
      }
      const after = await fx.ctx.call('GET', `${base}?id=${enc(id)}`)
      expect({ status: after.status, body: after.body, etag: after.headers.get('etag') }).toEqual({ status: before.status, body: before.body, etag: before.headers.get('etag') })
    }
    const res = await fx.ctx.call('PATCH', `${base}?id=pages/named`, { body: [{ op: 'test', path: '/id', value: 'pages/named' }, { op: 'copy', from: '/id', path: '/fields/self' }] })
    expect({ status: res.status, id: res.body.id, self: res.body.fields.self }).toEqual({ status: 200, id: 'pages/named', self: 'pages/named' })
  })

  test('an operation on the root replaces every field, protected ones included: refused with protected_field', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/root') })
    await fx.ctx.call('POST', base, { body: page('pages/root/draft', { en: { title: 'draft', slug: 's' } }) })
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
        const res = await fx.ctx.call('PATCH', `${base}?id=${enc(id)}`, { body: [op] })
        expect({ id, op, status: res.status, body: res.body }).toEqual({ id, op, status: 400, body: { error: 'protected_field', message: expect.any(String) } })
      }
      expect(await read(id)).toEqual(before)
    }
  })

  test('a test of the root and nested paths still apply', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/root-test') })
    const res = await fx.ctx.call('PATCH', `${base}?id=pages/root-test`, {
      body: [
        { op: 'test', path: '', value: page('pages/root-test') },
        { op: 'replace', path: '/locales/en/title', value: 'new' },
        { op: 'add', path: '/fields/__publishedBy', value: 'a field of its own' },
      ],
    })
    expect(res.status).toBe(200)
    expect(strip(res.body)).toEqual(page('pages/root-test', { en: { title: 'new', slug: 's' } }, { parent: 'pages/home', __publishedBy: 'a field of its own' }))
    const failing = await fx.ctx.call('PATCH', `${base}?id=pages/root-test`, { body: [{ op: 'test', path: '', value: page('pages/root-test') }] })
    expect(failing.body.error).toBe('invalid_patch')
  })

  test('patching a missing draft creates it from the published canonical without the stamp', async () => {
    const res = await fx.ctx.call('PATCH', `${base}?id=pages/home/draft`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'Home 2' }] })
    expect(res.status).toBe(200)
    expect(res.body.__publishedBy).toBeUndefined()
    expect(res.body.__publishedAt).toBeUndefined()
    expect(res.body).toMatchObject({ id: 'pages/home/draft', locales: { en: { title: 'Home 2', slug: '' } }, __dirtyLocales: ['en'] })
    expect((await read('pages/home')).__publishedBy).toBe('cli')
  })

  test('a patch that is not an array, is invalid, or does not apply is 400', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/p4') })
    const notArray = await fx.ctx.call('PATCH', `${base}?id=pages/p4`, { body: { op: 'add' } })
    expect(notArray.status).toBe(400)
    const invalid = await fx.ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'nope', path: '/x' }] })
    expect(invalid.body.error).toBe('invalid_patch')
    const failing = await fx.ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'test', path: '/locales/en/title', value: 'other' }] })
    expect(failing.body).toEqual({ error: 'invalid_patch', message: 'The patch does not apply: TEST_OPERATION_FAILED at operation 0 (test /locales/en/title): the value at the path is not the one tested.' })
    // Which operation and path, in words as well as the library's code.
    const missing = await fx.ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'test', path: '/id', value: 'pages/p4' }, { op: 'replace', path: '/locales/fr/title', value: 'x' }] })
    expect(missing.body).toEqual({ error: 'invalid_patch', message: 'The patch does not apply: OPERATION_PATH_UNRESOLVABLE at operation 1 (replace /locales/fr/title): the path does not exist in the document.' })
    // The prototype guard's TypeError is named for what it is, not by an internal exception name.
    for (const path of ['/__proto__/x', '/fields/__proto__', '/locales/__proto__']) {
      const proto = await fx.ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'add', path, value: 1 }] })
      expect({ path, body: proto.body }).toEqual({ path, body: { error: 'invalid_patch', message: 'The patch does not apply: `__proto__`, `constructor` and `prototype` cannot be patched.' } })
    }
    // Array indexes as RFC 6901 writes them, checked before the library (which reads them with
    // `~~`: 2^31 and up wrapped round, an `add` went in first, a path reached element 0): refused, nothing written.
    await fx.ctx.call('POST', base, { body: page('pages/arr', undefined, { parent: 'pages/home', arr: ['a', 'b', 'c'], objs: [{ x: 1 }] }) })
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
      const res = await fx.ctx.call('PATCH', `${base}?id=pages/arr`, { body: [op] })
      expect({ op, status: res.status, body: res.body }).toEqual({ op, status: 400, body: { error: 'invalid_patch', message: `The patch does not apply: ${message}.` } })
    }
    expect(await read('pages/arr')).toEqual(before)
    // In range they still apply: the end (`-` or the length), a path through an element.
    const fine = await fx.ctx.call('PATCH', `${base}?id=pages/arr`, { body: [{ op: 'add', path: '/fields/arr/3', value: 'd' }, { op: 'add', path: '/fields/arr/-', value: 'e' }, { op: 'replace', path: '/fields/objs/0/x', value: 2 }] })
    expect(fine.status).toBe(200)
    expect(fine.body.fields).toMatchObject({ arr: ['a', 'b', 'c', 'd', 'e'], objs: [{ x: 2 }] })
    const breaking = await fx.ctx.call('PATCH', `${base}?id=pages/p4`, { body: [{ op: 'replace', path: '/locales', value: 5 }] })
    expect(breaking.body.error).toBe('invalid_document')
    expect((await fx.ctx.call('PATCH', `${base}?id=pages/none`, { body: [] })).status).toBe(404)
  })
})
