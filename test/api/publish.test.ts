import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'
import { countRevisions, listRevisions } from '../../db/store'
import { parentsFirst } from '../../core/publish/service'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

const base = `/content/${TEAM}`
const publish = (body: unknown) => ctx.call('POST', `/content/publish/${TEAM}`, { body })
const read = async (id: string) => (await ctx.call('GET', `${base}?id=${encodeURIComponent(id)}`)).body
const STAMP_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$/

describe('POST /content/publish/{activeTeam}', () => {
  test('the draft becomes the stamped live canonical with exactly one stamped revision of its exact state', async () => {
    await ctx.call('POST', base, { body: { id: 'pages/a/draft', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'A', slug: 'a' } } } })
    const res = await publish({ ids: ['pages/a'] })
    expect(res.status).toBe(200)
    const doc = res.body[0].document
    expect(res.body).toEqual([{ id: 'pages/a', status: 0, document: doc }])
    expect(doc).toMatchObject({ id: 'pages/a', __publishedBy: 'u-editor', locales: { en: { title: 'A', slug: 'a' } } })
    expect(doc.__publishedAt).toMatch(STAMP_TIME)
    expect(doc.__dirtyLocales).toBeUndefined()
    const revs = await listRevisions(ctx.db, TEAM, 'pages/a', 0, 10)
    expect(revs).toHaveLength(1)
    const { '@metadata': meta, ...live } = await read('pages/a')
    expect(revs[0]!.body).toEqual(live)
    expect(revs[0]!.stamped).toBe(true)
    expect(revs[0]!.changeVector).toBe(meta['@change-vector'])
    // A published draft with nothing left unpublished is gone.
    expect((await ctx.call('GET', `${base}?id=pages/a/draft`)).status).toBe(404)
  })

  test('every publish leaves one more version, newest first', async () => {
    for (const title of ['v2', 'v3']) {
      await ctx.call('POST', base, { body: { id: 'pages/a/draft', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title, slug: 'a' } } } })
      await publish({ ids: ['pages/a'] })
    }
    expect(await countRevisions(ctx.db, TEAM, 'pages/a')).toBe(3)
    const list = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/a`)
    expect(list.body.rows.map((r: { publishedBy: string }) => r.publishedBy)).toEqual(['u-editor', 'u-editor', 'u-editor'])
    const newest = await ctx.call('GET', `/content/version/${TEAM}?id=pages/a&version=${list.body.rows[0].version}`)
    expect(newest.body.locales.en.title).toBe('v3')
    const oldest = await ctx.call('GET', `/content/version/${TEAM}?id=pages/a&version=${list.body.rows[2].version}`)
    expect(oldest.body.locales.en.title).toBe('A')
  })

  test('publishing a canonical without a draft stamps it as it is', async () => {
    await ctx.call('POST', base, { body: { id: 'pages/nodraft', contentType: 'page', locales: { en: { title: 'N', slug: 'n' } } } })
    const res = await publish({ ids: ['pages/nodraft'] })
    expect(res.body[0].status).toBe(0)
    expect(res.body[0].document.locales).toEqual({ en: { title: 'N', slug: 'n' } })
  })

  test('locales publishes only those locales of the draft; the rest stay dirty in the draft', async () => {
    await ctx.call('POST', base, { body: { id: 'pages/loc', contentType: 'page', locales: { en: { title: 'E1', slug: 'e' }, de: { title: 'D1', slug: 'd' } } } })
    await publish({ ids: ['pages/loc'] })
    await ctx.call('POST', base, { body: { id: 'pages/loc/draft', contentType: 'page', locales: { en: { title: 'E2', slug: 'e' }, de: { title: 'D2', slug: 'd' }, fr: { title: 'F2', slug: 'f' } } } })
    const res = await publish({ ids: ['pages/loc'], locales: ['de', 'fr'] })
    expect(res.body[0].document.locales).toEqual({ en: { title: 'E1', slug: 'e' }, de: { title: 'D2', slug: 'd' }, fr: { title: 'F2', slug: 'f' } })
    const draft = await read('pages/loc/draft')
    expect(draft.__dirtyLocales).toEqual(['en'])
    const versions = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/loc`)
    expect(versions.body.rows[0].locales).toEqual(['en', 'de', 'fr'])
  })

  test('locales on a never-published document: only those locales go live, the others stay dirty in the draft', async () => {
    const fields = { parent: 'pages/home' }
    const en = { title: 'EN', slug: 'pl1' }
    const de = { title: 'DE NOT READY', slug: 'pl1-de' }
    await ctx.call('POST', base, { body: { id: 'pages/pl1/draft', contentType: 'page', fields, locales: { en, de } } })
    const res = await publish({ ids: ['pages/pl1'], locales: ['en'] })
    const { '@metadata': _m, ...live } = res.body[0].document
    expect({ status: res.status, item: { ...res.body[0], document: live } }).toEqual({
      status: 200,
      item: {
        id: 'pages/pl1', status: 0,
        document: { id: 'pages/pl1', contentType: 'page', fields, locales: { en }, __publishedBy: 'u-editor', __publishedAt: expect.stringMatching(STAMP_TIME) },
      },
    })
    // As with an existing canonical: the draft stays, holding what is still unpublished.
    const { '@metadata': _d, ...draft } = await read('pages/pl1/draft')
    expect(draft).toEqual({ id: 'pages/pl1/draft', contentType: 'page', fields, locales: { en, de }, __dirtyLocales: ['de'] })
    const versions = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/pl1`)
    expect(versions.body.rows.map((r: { locales: string[] }) => r.locales)).toEqual([['en']])
  })

  test('locales on a never-published canonical without a draft: only those go live, the others move into a new draft', async () => {
    const en = { title: 'EN', slug: 'pc1' }
    const de = { title: 'DE NOT READY', slug: 'pc1-de' }
    await ctx.call('POST', base, { body: { id: 'pages/pc1', contentType: 'page', locales: { en, de } } })
    const res = await publish({ ids: ['pages/pc1'], locales: ['en'] })
    expect(res.status).toBe(200)
    expect(res.body[0]).toMatchObject({ id: 'pages/pc1', status: 0, document: { locales: { en }, __publishedBy: 'u-editor' } })
    expect(Object.keys(res.body[0].document.locales)).toEqual(['en'])
    // Nothing lost: the unpublished locale waits in the draft, dirty, without a stamp.
    const { '@metadata': _d, ...draft } = await read('pages/pc1/draft')
    expect(draft).toEqual({ id: 'pages/pc1/draft', contentType: 'page', fields: {}, locales: { en, de }, __dirtyLocales: ['de'] })
    const versions = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/pc1`)
    expect(versions.body.rows.map((r: { locales: string[] }) => r.locales)).toEqual([['en']])
    // Publishing the rest later puts both live and settles the draft away.
    const rest = await publish({ ids: ['pages/pc1'], locales: ['de'] })
    expect(rest.body[0].document.locales).toEqual({ en, de })
    expect((await ctx.call('GET', `${base}?id=pages/pc1/draft`)).status).toBe(404)
    // Every locale asked for: all of it is live, and no draft is left behind.
    await ctx.call('POST', base, { body: { id: 'pages/pc2', contentType: 'page', locales: { en, de } } })
    expect((await publish({ ids: ['pages/pc2'], locales: ['en', 'de'] })).body[0].document.locales).toEqual({ en, de })
    expect((await ctx.call('GET', `${base}?id=pages/pc2/draft`)).status).toBe(404)
  })

  test('locales after an unpublish: the taken-down locales do not come back live with the ones asked for', async () => {
    const en = { title: 'EN', slug: 'pu1' }
    const de = { title: 'DE', slug: 'pu1-de' }
    await ctx.call('POST', base, { body: { id: 'pages/pu1', contentType: 'page', locales: { en, de } } })
    await publish({ ids: ['pages/pu1'] })
    const down = await ctx.call('POST', `/content/unpublish/${TEAM}`, { body: { ids: ['pages/pu1'] } })
    expect(down.body[0].status).toBe(0)
    const res = await publish({ ids: ['pages/pu1'], locales: ['en'] })
    expect(res.body[0].document.locales).toEqual({ en })
    const { '@metadata': _d, ...draft } = await read('pages/pu1/draft')
    expect(draft).toMatchObject({ locales: { en, de }, __dirtyLocales: ['de'] })
  })

  test('refusals are batch items with status 1 and a reason; the others still publish', async () => {
    await ctx.call('POST', base, { body: { id: 'pages/ok', contentType: 'page' } })
    const res = await publish({ ids: ['pages/ok', 'pages/missing', 'pages/ok/draft'] })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      { id: 'pages/ok', status: 0, document: expect.objectContaining({ id: 'pages/ok' }) },
      { id: 'pages/missing', status: 1, reason: 'Document not found.' },
      // spec.md "Batch result item": `id` is the canonical id, also when a sibling was given.
      { id: 'pages/ok', status: 1, reason: 'Expected a canonical document id, not a sibling id.' },
    ])
    expect(await countRevisions(ctx.db, TEAM, 'pages/missing')).toBe(0)
  })

  test('every sibling kind is refused under its canonical id; an activity id is echoed', async () => {
    await ctx.call('POST', base, { body: { id: 'pages/sib', contentType: 'page' } })
    const before = await countRevisions(ctx.db, TEAM, 'pages/sib')
    const res = await publish({ ids: ['pages/sib/draft', 'pages/sib/scheduled', 'pages/sib/snapshot/AAAAAAAAAAAAAAAAAAAAAA', 'pages/sib/activity'] })
    const reason = 'Expected a canonical document id, not a sibling id.'
    expect(res.body).toEqual([
      { id: 'pages/sib', status: 1, reason },
      { id: 'pages/sib', status: 1, reason },
      { id: 'pages/sib', status: 1, reason },
      { id: 'pages/sib/activity', status: 1, reason },
    ])
    expect(await countRevisions(ctx.db, TEAM, 'pages/sib')).toBe(before)
  })

  test('an unknown locale is refused per item and publishes nothing', async () => {
    const before = await countRevisions(ctx.db, TEAM, 'pages/ok')
    const res = await publish({ ids: ['pages/ok'], locales: ['xx'] })
    expect(res.body).toEqual([{ id: 'pages/ok', status: 1, reason: 'Unknown locale(s): xx.' }])
    expect(await countRevisions(ctx.db, TEAM, 'pages/ok')).toBe(before)
  })

  test('an empty or space-padded locale code is named visibly in the reason', async () => {
    const res = await publish({ ids: ['pages/ok'], locales: ['', ' en'] })
    expect(res.body).toEqual([{ id: 'pages/ok', status: 1, reason: 'Unknown locale(s): "", " en".' }])
  })

  test('a value with control, zero-width or bidi characters is named quoted and escaped (a raw U+202E would reverse the text after it in a UI or log), and cut by code points', async () => {
    const res = await publish({ ids: ['pages/ok'], locales: ['a\u0000b', '\u202eabc', 'e\u200bn', '😀'.repeat(40)] })
    expect(res.body).toEqual([{ id: 'pages/ok', status: 1, reason: `Unknown locale(s): "a\\u0000b", "\\u202eabc", "e\\u200bn", ${'😀'.repeat(32)}....` }])
    const type = await ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/t1', contentType: 'pa\u202ege', fields: {}, locales: {} } })
    expect(type.body).toEqual({ error: 'unknown_content_type', message: 'Unknown content type: "pa\\u202ege".' })
  })

  test('a malformed body is 400 with the object shape', async () => {
    for (const body of [{}, { ids: [] }, { ids: 'pages/ok' }, { ids: ['a'], locales: [] }, '{']) {
      const res = await publish(body)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: expect.stringMatching(/^(invalid_body|malformed_json)$/), message: expect.any(String) })
    }
  })

  test('a published canonical edited in place keeps the stamp of its last publish; the write adds none and no version', async () => {
    await ctx.call('POST', base, { body: { id: 'pages/inplace', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'A', slug: 'inplace' } } } })
    const live = (await publish({ ids: ['pages/inplace'] })).body[0].document
    const stamp = { __publishedBy: live.__publishedBy, __publishedAt: live.__publishedAt }
    // A forged stamp in the body is dropped; the stored one stays.
    const forged = { id: 'pages/inplace', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'B', slug: 'inplace' } }, __publishedBy: 'mallory', __publishedAt: '2000-01-01T00:00:00.0000000Z' }
    expect((await ctx.call('POST', base, { body: forged })).status).toBe(200)
    expect(await read('pages/inplace')).toMatchObject({ locales: { en: { title: 'B' } }, ...stamp })
    const patched = await ctx.call('PATCH', `${base}?id=pages/inplace`, { body: [{ op: 'replace', path: '/locales/en/title', value: 'C' }] })
    expect(patched.status).toBe(200)
    expect(await read('pages/inplace')).toMatchObject({ locales: { en: { title: 'C' } }, ...stamp })
    expect(await countRevisions(ctx.db, TEAM, 'pages/inplace')).toBe(1)
  })

  test('a repeated id (or locale) is 400 invalid_body and publishes nothing, rather than one version per repeat', async () => {
    await ctx.call('POST', base, { body: { id: 'pages/twice/draft', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'T', slug: 'twice' } } } })
    for (const body of [{ ids: ['pages/twice', 'pages/twice'] }, { ids: ['pages/twice'], locales: ['en', 'en'] }]) {
      const res = await publish(body)
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_body' })
    }
    expect((await ctx.call('GET', `${base}?id=pages/twice`)).status).toBe(404)
    expect(await countRevisions(ctx.db, TEAM, 'pages/twice')).toBe(0)
    expect((await publish({ ids: ['pages/twice'] })).body[0].status).toBe(0)
    expect(await countRevisions(ctx.db, TEAM, 'pages/twice')).toBe(1)
  })

  test('the publish metric counts ok outcomes', async () => {
    const text = await (await ctx.call('GET', '/metrics', { token: TOKENS.translator })).text
    expect(text).toContain('service_api_publish_revisions{outcome="ok"}')
    const ok = Number(/service_api_publish_revisions\{outcome="ok"\} (\d+)/.exec(text)![1])
    await publish({ ids: ['pages/ok'] })
    const after = (await ctx.call('GET', '/metrics', { token: TOKENS.translator })).text
    expect(Number(/service_api_publish_revisions\{outcome="ok"\} (\d+)/.exec(after)![1])).toBe(ok + 1)
  })
})

test('parentsFirst: parents before children, every index once, cycles and repeats survive', () => {
  const parents: Record<string, string | null> = { c: 'b', b: 'a', a: null, x: 'y', y: 'x', s: 's' }
  const of = (id: string) => parents[id] ?? null
  expect(parentsFirst(['c', 'b', 'a'], of)).toEqual([2, 1, 0])
  expect(parentsFirst(['a', 'c', 'z', 'b'], of)).toEqual([0, 3, 1, 2])
  for (const ids of [['x', 'y'], ['s', 'a', 's'], ['a']]) {
    expect([...parentsFirst(ids, of)].sort()).toEqual(ids.map((_, i) => i))
  }
})
