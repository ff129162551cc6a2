import { describe, expect, test } from 'bun:test'
import { enc, TEAM, TOKENS } from '../helpers'
import { countRevisions } from '../../db/store'
import { base, IF_MATCH_FAILED, page, strip, documentsFixture } from './documents-fixture'

const fx = documentsFixture()
const { read } = fx

describe('POST /content/{activeTeam}', () => {
  test('creates a canonical and reads it back with @metadata and an ETag', async () => {
    const res = await fx.ctx.call('POST', base, { body: page('pages/one') })
    expect(res.status).toBe(200)
    expect(strip(res.body)).toEqual(page('pages/one'))
    const cv: string = res.body['@metadata']['@change-vector']
    expect(cv).toMatch(/^A:\d+-[A-Za-z0-9]+$/)
    expect(res.body['@metadata']['@collection']).toBe('pages')
    const get = await fx.ctx.call('GET', `${base}?id=pages/one`)
    expect(get.body).toEqual(res.body)
    expect(get.headers.get('etag')).toBe(`"${cv}"`)
  })

  test('removes forged stamp fields, __dirtyLocales, @metadata and Id from the body', async () => {
    const forged = { ...page('pages/forged'), __publishedBy: 'mallory', __publishedAt: '2020-01-01T00:00:00.0000000Z', __dirtyLocales: ['xx'], Id: 'x', '@metadata': { a: 1 } }
    const res = await fx.ctx.call('POST', base, { body: forged })
    expect(res.status).toBe(200)
    expect(strip(res.body)).toEqual(page('pages/forged'))
    expect(strip(await read('pages/forged'))).toEqual(page('pages/forged'))
  })

  test('a draft gets __dirtyLocales computed against the live canonical', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/dirty', { en: { title: 'A', slug: 'a' }, de: { title: 'B', slug: 'b' } }) })
    const draft = { ...page('pages/dirty/draft', { en: { title: 'A', slug: 'a' }, de: { title: 'B2', slug: 'b' }, fr: { title: 'C', slug: 'c' } }), __dirtyLocales: ['en'] }
    // Not published yet: nothing of it is live, so every locale carries unpublished changes.
    expect((await fx.ctx.call('POST', base, { body: draft })).body.__dirtyLocales).toEqual(['de', 'en', 'fr'])
    expect((await fx.ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/dirty'] } })).body[0].status).toBe(0)
    expect((await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/dirty'] } })).body[0].status).toBe(0)
    const res = await fx.ctx.call('POST', base, { body: draft })
    expect(res.status).toBe(200)
    expect(res.body.__dirtyLocales).toEqual(['de', 'fr'])
  })

  test('a live canonical rewritten in place (POST or PATCH) makes the draft\'s now-different locales dirty: publishing the draft would undo the fix', async () => {
    const live = { en: { title: 'E', slug: 'inplace' }, de: { title: 'D', slug: 'inplace-de' } }
    await fx.ctx.call('POST', base, { body: page('pages/inplace', live) })
    await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/inplace'] } })
    await fx.ctx.call('PATCH', `${base}?id=pages/inplace/draft`, { body: [{ op: 'replace', path: '/locales/de/title', value: 'D2' }] })
    expect((await read('pages/inplace/draft')).__dirtyLocales).toEqual(['de'])
    // A fix straight to the live page (ChangeLiveContent): the draft's en is the old text now.
    expect((await fx.ctx.call('POST', base, { body: page('pages/inplace', { ...live, en: { title: 'E-fixed', slug: 'inplace' } }) })).status).toBe(200)
    const draft = await read('pages/inplace/draft')
    expect({ en: draft.locales.en.title, dirty: draft.__dirtyLocales }).toEqual({ en: 'E', dirty: ['de', 'en'] })
    // The same by PATCH of the canonical; and a live change the draft already holds is clean again.
    await fx.ctx.call('PATCH', `${base}?id=pages/inplace`, { body: [{ op: 'replace', path: '/locales/de/title', value: 'D2' }, { op: 'replace', path: '/locales/en/title', value: 'E' }] })
    expect((await read('pages/inplace/draft')).__dirtyLocales).toEqual([])
    await fx.ctx.call('PATCH', `${base}?id=pages/inplace`, { body: [{ op: 'replace', path: '/locales/de/title', value: 'D3' }] })
    expect((await read('pages/inplace/draft')).__dirtyLocales).toEqual(['de'])
  })

  test('a draft of a document with no canonical has every locale dirty', async () => {
    const res = await fx.ctx.call('POST', base, { body: page('pages/new/draft', { en: { title: 'A', slug: 'a' }, de: { title: 'B', slug: 'b' } }) })
    expect(res.body.__dirtyLocales).toEqual(['de', 'en'])
  })

  test('a live locale the draft drops is dirty: draft write, PATCH and a publish with locales that leaves a draft agree', async () => {
    const live = { en: { title: 'E', slug: 'e' }, de: { title: 'D', slug: 'd' }, fr: { title: 'F', slug: 'f' } }
    await fx.ctx.call('POST', base, { body: page('pages/drop', live) })
    await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/drop'] } })
    // spec.md "Other draft-related fields": removing a locale is an unpublished change too.
    const written = await fx.ctx.call('POST', base, { body: page('pages/drop/draft', { en: live.en }) })
    expect(strip(written.body)).toEqual({ ...page('pages/drop/draft', { en: live.en }), __dirtyLocales: ['de', 'fr'] })
    const patched = await fx.ctx.call('PATCH', `${base}?id=pages/drop/draft`, { body: [{ op: 'add', path: '/locales/fr', value: live.fr }] })
    expect(patched.body.__dirtyLocales).toEqual(['de'])
    const partial = await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/drop'], locales: ['en'] } })
    expect(partial.body[0].document.locales).toEqual(live)
    expect(strip(await read('pages/drop/draft'))).toEqual({ ...page('pages/drop/draft', { en: live.en, fr: live.fr }), __dirtyLocales: ['de'] })
    // Publishing the whole draft takes de down, as the dirty set said it would.
    const whole = await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/drop'] } })
    expect(whole.body[0].document.locales).toEqual({ en: live.en, fr: live.fr })
    expect((await fx.ctx.call('GET', `${base}?id=pages/drop/draft`)).status).toBe(404)
  })

  test('editing appends EDIT activity entries per changed locale and a locale-less one for fields', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/act', { en: { title: 'A', slug: 'a' } }) })
    await fx.ctx.call('POST', base, { body: page('pages/act/draft', { en: { title: 'A', slug: 'a' }, de: { title: 'B', slug: 'b' } }, { parent: null }) })
    const activity = await read('pages/act/activity')
    const last = activity.entries.slice(-2).map((e: { kind: string; locale: string | null; userId: string }) => [e.kind, e.locale, e.userId])
    expect(last).toEqual([['EDIT', 'de', 'u-editor'], ['EDIT', null, 'u-editor']])
  })

  test('If-Match with a stale change vector is 409 and writes nothing', async () => {
    const first = await fx.ctx.call('POST', base, { body: page('pages/etag') })
    const stale = first.body['@metadata']['@change-vector']
    await fx.ctx.call('POST', base, { body: page('pages/etag', { en: { title: 'second', slug: 's' } }) })
    const res = await fx.ctx.call('POST', base, { body: page('pages/etag', { en: { title: 'third', slug: 's' } }), headers: { 'if-match': `"${stale}"` } })
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ error: 'conflict', message: IF_MATCH_FAILED })
    expect((await read('pages/etag')).locales.en.title).toBe('second')
  })

  test('If-Match as RFC 9110 reads it: `*`, a list of tags, weak tags, on POST and PATCH', async () => {
    const first = await fx.ctx.call('POST', base, { body: page('pages/im') })
    const cv = first.body['@metadata']['@change-vector']
    const post = (ifMatch: string, title: string) => fx.ctx.call('POST', base, { body: page('pages/im', { en: { title, slug: 's' } }), headers: { 'if-match': ifMatch } })
    const patch = (ifMatch: string, title: string) =>
      fx.ctx.call('PATCH', `${base}?id=pages/im`, { body: [{ op: 'replace', path: '/locales/en/title', value: title }], headers: { 'if-match': ifMatch } })
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
    const none = await fx.ctx.call('POST', base, { body: page('pages/im-new'), headers: { 'if-match': '*' } })
    expect({ status: none.status, body: none.body }).toEqual({ status: 409, body: { error: 'conflict', message: expect.any(String) } })
    expect((await fx.ctx.call('GET', `${base}?id=pages/im-new`)).status).toBe(404)
    // A soft-deleted document does not exist either: `*` does not bring it back, nor does its old tag.
    const etag = (await fx.ctx.call('GET', `${base}?id=pages/im`)).headers.get('etag')!
    expect((await fx.ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/im'] } })).body[0].status).toBe(0)
    for (const ifMatch of ['*', etag]) {
      const back = await post(ifMatch, 'back')
      // Said as it is: the document does not exist (not "changed by someone else").
      expect({ ifMatch, status: back.status, body: back.body }).toEqual({ ifMatch, status: 409, body: { error: 'conflict', message: IF_MATCH_FAILED } })
    }
    expect((await fx.ctx.call('GET', `${base}?id=pages/im`)).status).toBe(404)
  })

  test('an If-Match that is no entity-tag list is 400 invalid_if_match, not a 409 the client would retry forever; nothing is written', async () => {
    const first = await fx.ctx.call('POST', base, { body: page('pages/im-bad') })
    const cv = first.body['@metadata']['@change-vector']
    const message = 'If-Match must be `*`, or the ETag of a read ("<change vector>"), or a comma-separated list of such quoted tags.'
    for (const ifMatch of ['W/"x", "y', '"'.repeat(10_000), ',,,', `"${cv}" junk`, 'a b', '']) {
      for (const res of [
        await fx.ctx.call('POST', base, { body: page('pages/im-bad', { en: { title: 'no', slug: 's' } }), headers: { 'if-match': ifMatch } }),
        await fx.ctx.call('PATCH', `${base}?id=pages/im-bad`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'no' }], headers: { 'if-match': ifMatch } }),
      ]) expect({ ifMatch: ifMatch.slice(0, 20), status: res.status, body: res.body }).toEqual({ ifMatch: ifMatch.slice(0, 20), status: 400, body: { error: 'invalid_if_match', message } })
    }
    expect((await read('pages/im-bad'))['@metadata']['@change-vector']).toBe(cv)
    // Empty list elements are allowed (RFC 9110 5.6.1), and a lone unquoted tag as before.
    for (const ifMatch of [`, "other" ,, "${cv}",`, cv]) {
      const res = await fx.ctx.call('PATCH', `${base}?id=pages/im-bad`, { body: [{ op: 'test', path: '/id', value: 'pages/im-bad' }], headers: { 'if-match': ifMatch } })
      expect({ ifMatch, status: res.status }).toEqual({ ifMatch, status: 200 })
    }
  })

  test('If-None-Match on a read: 304 without a body while the copy is current, weak tags and `*` too; 200 once it changed', async () => {
    const cv = (await fx.ctx.call('POST', base, { body: page('pages/inm') })).body['@metadata']['@change-vector']
    const get = (ifNoneMatch: string, id = 'pages/inm') => fx.ctx.call('GET', `${base}?id=${enc(id)}`, { headers: { 'if-none-match': ifNoneMatch } })
    for (const current of [`"${cv}"`, cv, `W/"${cv}"`, `"other", "${cv}"`, '*']) {
      const res = await get(current)
      expect({ current, status: res.status, text: res.text, etag: res.headers.get('etag') }).toEqual({ current, status: 304, text: '', etag: `"${cv}"` })
    }
    // Another tag: the whole document.
    const other = await get('"A:1-other"')
    expect({ status: other.status, title: other.body.locales.en.title, etag: other.headers.get('etag') }).toEqual({ status: 200, title: 'T', etag: `"${cv}"` })
    // Once the document changes, the old tag reads it again.
    await fx.ctx.call('POST', base, { body: page('pages/inm', { en: { title: 'changed', slug: 's' } }) })
    const changed = await get(`"${cv}"`)
    expect({ status: changed.status, title: changed.body.locales.en.title }).toEqual({ status: 200, title: 'changed' })
    expect(changed.headers.get('etag')).not.toBe(`"${cv}"`)
    // A missing document is still 404, `*` or not; the check comes after reading.
    const missing = await get('*', 'pages/inm-missing')
    expect({ status: missing.status, error: missing.body.error }).toEqual({ status: 404, error: 'not_found' })
    // The same rules for an outsider: 403 before any 304.
    const outsider = await fx.ctx.call('GET', `${base}?id=pages/inm`, { token: TOKENS.outsider, headers: { 'if-none-match': '*' } })
    expect(outsider.status).toBe(403)
  })

  test('no write other than publish creates a revision', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/norev') })
    await fx.ctx.call('POST', base, { body: page('pages/norev/draft', { en: { title: 'd', slug: 's' } }) })
    await fx.ctx.call('PATCH', `${base}?id=pages/norev`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'p' }] })
    await fx.ctx.call('POST', `/content/copy/${TEAM}`, { body: { ids: ['pages/norev'] } })
    await fx.ctx.call('POST', `/content/archive/${TEAM}`, { body: { ids: ['pages/norev'] } })
    expect(await countRevisions(fx.ctx.db, TEAM, 'pages/norev')).toBe(0)
  })
})
