import { row } from '../rows'
import { describe, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM, TOKENS } from '../helpers'
import { countRevisions } from '../../db/store'
import { dueSchedules } from '../../core/publish/scheduled'
import { base, page, documentsFixture } from './documents-fixture'

const fx = documentsFixture()
const { read } = fx

describe('a document that so far only has a draft', () => {
  test('discard-draft discards the draft; a second discard finds no document', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/dr2/draft') })
    const res = await fx.ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/dr2', 'pages/dr2'] } })
    expect(res.body).toEqual([{ id: 'pages/dr2', status: 0 }, { id: 'pages/dr2', status: 1, reason: 'Document not found.' }])
    expect((await fx.ctx.call('GET', `${base}?id=pages/dr2/draft`)).status).toBe(404)
  })

  test('discard-draft refuses to leave a pending schedule without its document (it would still publish, unseen by history and out of reach of delete); unschedule first, then it discards', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/ghost/draft') })
    const publishAt = new Date(Date.now() + 3_600_000).toISOString()
    expect((await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/ghost', publishAt } })).status).toBe(201)
    const refused = await fx.ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/ghost'] } })
    expect(refused.body).toEqual([{ id: 'pages/ghost', status: 1, reason: 'The document has only a draft and a scheduled publish: unschedule it first, or delete the document.' }])
    expect((await fx.ctx.call('GET', `/content/history/${TEAM}?id=pages/ghost`)).body.scheduled).toMatchObject({ id: 'pages/ghost/scheduled', publishAt })
    expect((await fx.ctx.call('POST', `/content/unschedule/${TEAM}`, { body: { ids: ['pages/ghost'] } })).body).toEqual([{ id: 'pages/ghost', status: 0 }])
    expect((await fx.ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: ['pages/ghost'] } })).body).toEqual([{ id: 'pages/ghost', status: 0 }])
    expect((await dueSchedules(fx.ctx.db, Date.now() + 7_200_000)).filter((s) => s.documentId === 'pages/ghost')).toEqual([])
  })

  test('publishAt is RFC 3339 with its offset: a local time or a prose date is 400 invalid_body and schedules nothing', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/tz/draft') })
    for (const publishAt of ['2099-01-01T09:00:00', 'Jan 1 2099', '2099-01-01 09:00:00Z']) {
      const res = await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/tz', publishAt } })
      expect({ publishAt, status: res.status, error: res.body.error }).toEqual({ publishAt, status: 400, error: 'invalid_body' })
    }
    expect((await fx.ctx.call('GET', `${base}?id=pages/tz/scheduled`)).status).toBe(404)
    for (const publishAt of ['2099-01-01T09:00:00+02:00', '2099-01-01T09:00Z', '2099-01-01']) {
      expect({ publishAt, status: (await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/tz', publishAt } })).status }).toEqual({ publishAt, status: 201 })
    }
  })

  test('copy takes the draft; unpublish and archive refuse, saying there is nothing live (not "not found")', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/dr4/draft', { en: { title: 'Idea', slug: 'idea' } }) })
    const copied = await fx.ctx.call('POST', `/content/copy/${TEAM}`, { body: { ids: ['pages/dr4'] } })
    expect(copied.body).toEqual([{ id: 'pages/dr4', status: 0, document: expect.objectContaining({ id: 'pages/dr4-copy', locales: { en: { title: 'Idea', slug: 'idea' } } }) }])
    const copy = await read('pages/dr4-copy')
    expect({ published: copy['@metadata'].published, dirty: copy.__dirtyLocales }).toEqual({ published: false, dirty: undefined })
    for (const op of ['unpublish', 'archive']) {
      const res = await fx.ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: ['pages/dr4'] } })
      expect({ op, body: res.body }).toEqual({ op, body: [{ id: 'pages/dr4', status: 1, reason: `The document has only a draft: nothing of it is live to ${op}. Discard the draft or delete the document to remove it.` }] })
    }
    expect((await read('pages/dr4/draft')).locales.en.title).toBe('Idea')
  })

  test('delete removes the draft and its schedule; nothing else remains', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/dr3/draft') })
    const publishAt = new Date(Date.now() + 3_600_000).toISOString()
    expect((await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/dr3', publishAt } })).status).toBe(201)
    const res = await fx.ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: ['pages/dr3', 'pages/dr3'] } })
    expect(res.body).toEqual([{ id: 'pages/dr3', status: 0 }, { id: 'pages/dr3', status: 1, reason: 'Document not found.' }])
    for (const id of ['pages/dr3', 'pages/dr3/draft', 'pages/dr3/scheduled']) {
      expect({ id, status: (await fx.ctx.call('GET', `${base}?id=${id}`)).status }).toEqual({ id, status: 404 })
    }
    expect((await fx.ctx.call('GET', `/content/history/${TEAM}?id=pages/dr3`)).status).toBe(404)
  })

  test('unschedule cancels a scheduled publish (the draft stays), refuses when there is none, and needs ChangeLiveContent as scheduling does', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/us/draft') })
    const publishAt = new Date(Date.now() + 3_600_000).toISOString()
    expect((await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/us', publishAt } })).status).toBe(201)
    const denied = await fx.ctx.call('POST', `/content/unschedule/${TEAM}`, { token: TOKENS.translator, body: { ids: ['pages/us'] } })
    expect({ status: denied.status, error: denied.body.error }).toEqual({ status: 403, error: 'forbidden' })
    const res = await fx.ctx.call('POST', `/content/unschedule/${TEAM}`, { body: { ids: ['pages/us', 'pages/us', 'pages/none'] } })
    expect(res.body).toEqual([
      { id: 'pages/us', status: 0 },
      { id: 'pages/us', status: 1, reason: 'There is no scheduled publish to cancel.' },
      { id: 'pages/none', status: 1, reason: 'Document not found.' },
    ])
    expect((await fx.ctx.call('GET', `${base}?id=pages/us/scheduled`)).status).toBe(404)
    expect((await read('pages/us/draft')).locales).toEqual(page('pages/us/draft').locales)
    expect((await fx.ctx.call('GET', `/content/history/${TEAM}?id=pages/us`)).body.scheduled).toBeNull()
    expect((await dueSchedules(fx.ctx.db, Date.now() + 7_200_000)).filter((s) => s.documentId === 'pages/us')).toEqual([]) // the dispatcher finds nothing to publish
  })

  test('archive cancels a pending scheduled publish (it would put the document back on the site); unpublish keeps it', async () => {
    const publishAt = new Date(Date.now() + 3_600_000).toISOString()
    for (const op of ['archive', 'unpublish']) {
      const id = `pages/sched-${op}`
      await fx.ctx.call('POST', base, { body: page(id) })
      await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
      await fx.ctx.call('POST', base, { body: page(`${id}/draft`, { en: { title: 'Next', slug: 's' } }) })
      expect((await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id, publishAt } })).status).toBe(201)
      expect((await fx.ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id] } })).body[0].status).toBe(0)
      const scheduled = (await fx.ctx.call('GET', `/content/history/${TEAM}?id=${id}`)).body.scheduled
      expect({ op, kept: scheduled !== null, copy: (await fx.ctx.call('GET', `${base}?id=${id}/scheduled`)).status }).toEqual(
        op === 'archive' ? { op, kept: false, copy: 404 } : { op, kept: true, copy: 200 },
      )
    }
  })

  test('a draft written after the canonical was soft-deleted can be discarded or deleted too', async () => {
    for (const op of ['discard-draft', 'delete']) {
      const id = `pages/reborn-${op}`
      await fx.ctx.call('POST', base, { body: page(id) })
      await fx.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
      await fx.ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: [id] } })
      await fx.ctx.call('POST', base, { body: page(`${id}/draft`) })
      const res = await fx.ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: [id] } })
      expect({ op, body: res.body }).toEqual({ op, body: [{ id, status: 0 }] })
      expect((await fx.ctx.call('GET', `${base}?id=${id}/draft`)).status).toBe(404)
      expect(await countRevisions(fx.ctx.db, TEAM, id)).toBe(1)
    }
  })
})

describe('concurrent writers', () => {
  test('parallel conditional writes on one change vector: exactly one lands, the rest get 409', async () => {
    const first = await fx.ctx.call('POST', base, { body: page('pages/race') })
    const cv = first.body['@metadata']['@change-vector']
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fx.ctx.call('POST', base, { body: page('pages/race', { en: { title: `w${i}`, slug: 's' } }), headers: { 'if-match': `"${cv}"` } }),
      ),
    )
    const winners = results.filter((r) => r.status === 200)
    expect(winners).toHaveLength(1)
    expect(results.filter((r) => r.status === 409)).toHaveLength(11)
    expect((await read('pages/race')).locales.en.title).toBe(winners[0]!.body.locales.en.title)
  })

  test('the activity document keeps the newest 500 entries', async () => {
    await fx.ctx.call('POST', base, { body: page('pages/busy') })
    for (let i = 0; i < 260; i++) {
      await fx.ctx.call('POST', base, { body: page('pages/busy/draft', { en: { title: `e${i}`, slug: 's' }, de: { title: `d${i}`, slug: 's' } }) })
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
      const event = JSON.parse(((await row(own.db, 'SELECT payload FROM outbox_events')) as { payload: string }).payload)
      expect({ locales: event.locales, urls: event.urls }).toEqual({ locales: ['en'], urls: { en: '/about' } })

      // Removing it is an edit like any other; it cannot come back after that.
      const dropped = await patch('pages/about/draft', [{ op: 'remove', path: '/locales/fr' }])
      expect(dropped.body.locales).toEqual({ en: { title: 'About!', slug: 'about' } })
      expect((await own.call('POST', base, { body: page('pages/about/draft', { en: { title: 'About!', slug: 'about' }, fr: { title: 'À propos', slug: 'a-propos' } }) })).body.error).toBe('unknown_locale')
    } finally {
      await own.close()
    }
  })
})
