import { describe, expect, test } from 'bun:test'
import { TEAM } from '../helpers'
import { countRevisions } from '../../db/store'
import { base, page, documentsFixture } from './documents-fixture'

const fx = documentsFixture()
const { read } = fx

describe('lifecycle', () => {
  test('copy removes the stamp', async () => {
    const res = await fx.ctx.call('POST', `/content/copy/${TEAM}`, { body: { ids: ['pages/home'] } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([{ id: 'pages/home', status: 0, document: expect.objectContaining({ id: 'pages/home-copy' }) }])
    const copy = await read('pages/home-copy')
    expect(copy.__publishedBy).toBeUndefined()
    expect(copy.__publishedAt).toBeUndefined()
    expect(copy['@metadata'].published).toBe(false)
  })

  test('copy takes the first id no document uses in any form: a draft-only document keeps its draft', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/cp') })
    expect((await fx.ctx.call('POST', base, { body: page('pages/cp-copy/draft', { en: { title: 'Draft only', slug: 'other' } }) })).status).toBe(200)
    const res = await fx.ctx.call('POST', `/content/copy/${TEAM}`, { body: { ids: ['pages/cp'] } })
    expect(res.body).toEqual([{ id: 'pages/cp', status: 0, document: expect.objectContaining({ id: 'pages/cp-copy-2' }) }])
    expect((await read('pages/cp-copy/draft')).locales.en.title).toBe('Draft only')
    expect((await fx.ctx.call('GET', `${base}?id=pages/cp-copy`)).status).toBe(404) // still no canonical of its own
  })

  test('unpublish and archive make every locale of an existing draft dirty: nothing of it is live any more', async () => {
    for (const op of ['unpublish', 'archive']) {
      const id = `pages/takedown-${op}`
      await fx.ctx.call('POST', base, { body: page(id, { en: { title: 'E', slug: `t-${op}` }, de: { title: 'D', slug: `t-${op}-de` } }) })
      await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
      await fx.ctx.call('PATCH', `${base}?id=${id}/draft`, { body: [{ op: 'replace', path: '/locales/de/title', value: 'D2' }] })
      expect((await read(`${id}/draft`)).__dirtyLocales).toEqual(['de'])
      expect((await fx.ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id] } })).body[0].status).toBe(0)
      expect({ op, dirty: (await read(`${id}/draft`)).__dirtyLocales }).toEqual({ op, dirty: ['de', 'en'] })
    }
  })

  test('archiving or unpublishing again leaves the canonical as it is: the same ETag', async () => {
    for (const op of ['archive', 'unpublish']) {
      const id = `pages/twice-${op}`
      await fx.ctx.call('POST', base, { body: page(id, { en: { title: 'T', slug: `twice-${op}` } }) })
      await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
      const first = await fx.ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id] } })
      const again = await fx.ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id, id] } })
      const cv = (r: { body: { document: { '@metadata': { '@change-vector': string } } }[] }, i: number) => r.body[i]!.document['@metadata']['@change-vector']
      expect({ op, statuses: again.body.map((i: { status: number }) => i.status), same: [cv(again, 0), cv(again, 1)] }).toEqual({ op, statuses: [0, 0], same: [cv(first, 0), cv(first, 0)] })
    }
  })

  test('unpublish moves the live content to a draft without the stamp', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/un') })
    await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/un'] } })
    const res = await fx.ctx.call('POST', `/content/unpublish/${TEAM}`, { body: { ids: ['pages/un'] } })
    expect(res.body[0].status).toBe(0)
    const draft = await read('pages/un/draft')
    expect(draft.__publishedAt).toBeUndefined()
    expect(draft.locales).toEqual({ en: { title: 'T', slug: 's' } })
    const canonical = await read('pages/un')
    expect(canonical['@metadata'].published).toBe(false)
    expect(canonical.__publishedAt).toBeUndefined()
  })

  test('delete is a soft delete: reads are 404, revisions stay', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/del') })
    await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/del'] } })
    const res = await fx.ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/del', 'pages/missing', 'pages/del/draft'] } })
    expect(res.body).toEqual([
      { id: 'pages/del', status: 0 },
      { id: 'pages/missing', status: 1, reason: 'Document not found.' },
      // spec.md "Batch result item": `id` is the canonical id, also when a sibling was given.
      { id: 'pages/del', status: 1, reason: expect.stringContaining('sibling') },
    ])
    expect((await fx.ctx.call('GET', `${base}?id=pages/del`)).status).toBe(404)
    expect(await countRevisions(fx.ctx.db, TEAM, 'pages/del')).toBe(1)
  })

  test('a document created again at the id of an archived, then deleted one is new: not archived, not published; the id keeps its versions', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/again') })
    await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/again'] } })
    for (const op of ['archive', 'delete']) expect((await fx.ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: ['pages/again'] } })).body[0].status).toBe(0)
    const res = await fx.ctx.call('POST', base, { body: page('pages/again', { en: { title: 'New', slug: 'again' } }) })
    expect(res.status).toBe(200)
    expect([res.body['@metadata'].archived, res.body['@metadata'].published]).toEqual([false, false])
    const list = await fx.ctx.call('GET', `/content/list/${TEAM}?after=pages/agaim&pageSize=1`)
    expect(list.body.rows[0]).toMatchObject({ id: 'pages/again', published: false, archived: false, draft: false })
    expect((await fx.ctx.call('GET', `/content/versions/${TEAM}?id=pages/again`)).body.rows).toHaveLength(1)
  })

  test('a sibling id is refused with the canonical id as the item id; other refusals echo the id', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/sib') })
    const ids = ['pages/sib/draft', 'pages/sib/scheduled', 'pages/sib/snapshot/AAAAAAAAAAAAAAAAAAAAAA', 'pages/sib/activity', 'pages/nope', 'pages/a/draft/draft']
    const sibling = 'Expected a canonical document id, not a sibling id.'
    for (const op of ['archive', 'unpublish', 'delete', 'copy', 'discard-draft', 'unschedule']) {
      const res = await fx.ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids } })
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
    await fx.ctx.call('POST', base, { body: page('pages/dd/draft') })
    await fx.ctx.call('POST', base, { body: page('pages/dd') })
    const res = await fx.ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/dd', 'pages/dd'] } })
    expect(res.body).toEqual([{ id: 'pages/dd', status: 0 }, { id: 'pages/dd', status: 1, reason: 'There is no draft to discard.' }])
  })
})
