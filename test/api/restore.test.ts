/**
 * spec.md "Restore semantics (shared with snapshot restore)", rule by rule, through HTTP.
 * Error rows are in restore-errors.test.ts; races in restore-race.test.ts.
 */
import { expect, test } from 'bun:test'
import { TEAM } from '../helpers'
import { activity, applySnapshot, applyVersion, bare, DRAFT, HISTORY, ID, ok, publishedTwice, put, read, restoreFixture, V1, V2 } from '../core/restore/fixtures'

const fx = restoreFixture()

test('rule 1: whole restore overwrites every source locale, reverts a later-published locale from the canonical', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  await put(fx.ctx, DRAFT)
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1 })
  expect(res.status).toBe(200)
  expect(res.body).toHaveLength(1)
  const [item] = res.body
  expect({ ...item, document: bare(item.document) }).toEqual({
    id: ID,
    status: 0,
    document: {
      id: `${ID}/draft`, contentType: 'page', fields: V1.fields,
      // fr was published after v1 was taken: it comes back from the live canonical.
      locales: { en: V1.locales.en, de: V1.locales.de, fr: V2.locales.fr },
      __dirtyLocales: ['de', 'en'],
    },
  })
  expect(item.document['@metadata']['@collection']).toBe('pages')
  expect(bare((await read(fx.ctx, `${ID}/draft`)).body)).toEqual(bare(item.document))
})

test('rule 1: `locales: null` is the whole restore too', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  await put(fx.ctx, DRAFT)
  const [item] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: null }))
  expect(bare(item.document).__dirtyLocales).toEqual(['de', 'en'])
  expect(bare(item.document).locales).toEqual({ en: V1.locales.en, de: V1.locales.de, fr: V2.locales.fr })
})

test('rule 2: a locale list takes only those locales from the source; the rest keep their pre-restore state', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  const before = await put(fx.ctx, DRAFT)
  // The draft changed en and dropped the live fr: both carry unpublished changes.
  expect(before.__dirtyLocales).toEqual(['en', 'fr'])
  const [item] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['de'] }))
  expect(bare(item.document)).toEqual({
    id: `${ID}/draft`, contentType: 'page',
    fields: V1.fields, // non-localizable fields always come from the source
    locales: {
      en: DRAFT.locales.en, // carried by the draft, not listed: put back as it was
      de: V1.locales.de, // listed: from the source
      fr: V2.locales.fr, // neither source nor draft carried it: from the canonical
    },
    __dirtyLocales: ['de', 'en', 'fr'], // pre-restore dirty set ∪ restored locales, to the letter
  })
})

test('rule 2: an unlisted locale the draft carried is put back byte-identical, not re-derived', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  const odd = { title: 'Brouillon', slug: 'brouillon', extra: { nested: [1, 'two', null] } }
  await put(fx.ctx, { ...DRAFT, locales: { ...DRAFT.locales, fr: odd } })
  const [item] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['en'] }))
  const doc = bare(item.document) as any
  expect(JSON.stringify(doc.locales.fr)).toBe(JSON.stringify(odd))
  expect(doc.locales).toEqual({ en: V1.locales.en, de: V2.locales.de, fr: odd })
  expect(doc.__dirtyLocales).toEqual(['en', 'fr'])
})

test('rule 2 (decided): a listed locale the source does not carry but the draft did is removed from the draft and counts as restored', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  await put(fx.ctx, { ...DRAFT, locales: { ...DRAFT.locales, fr: { title: 'x', slug: 'x' } } })
  const [item] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['fr'] }))
  const doc = bare(item.document) as any
  expect(doc.locales).toEqual({ en: DRAFT.locales.en, de: DRAFT.locales.de })
  expect(doc.__dirtyLocales).toEqual(['en', 'fr'])
})

test('rule 2: a listed locale that neither the source nor the draft carried is reverted from the canonical, never taken down', async () => {
  const { v1 } = await publishedTwice(fx.ctx) // v1 has no fr; the live canonical (v2) has
  // No draft at all: nothing carried fr before the restore.
  const [fresh] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['fr'] }))
  expect(bare(fresh.document)).toEqual({
    id: `${ID}/draft`, contentType: 'page', fields: V1.fields,
    locales: { en: V2.locales.en, de: V2.locales.de, fr: V2.locales.fr },
    __dirtyLocales: ['fr'],
  })
  // A draft without fr (DRAFT has en and de): the same.
  await fx.ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: [ID] } })
  await put(fx.ctx, DRAFT)
  const [item] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['fr'] }))
  expect(bare(item.document).locales).toEqual({ en: DRAFT.locales.en, de: DRAFT.locales.de, fr: V2.locales.fr })
})

test('rule 3: a locale list appends one APPLY_REVISION and prunes EDIT entries of the listed locales only', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  await put(fx.ctx, DRAFT)
  expect(await activity(fx.ctx, ID)).toEqual(HISTORY)
  await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['en'] }))
  expect(await activity(fx.ctx, ID)).toEqual([
    ...HISTORY.filter((e) => e.locale !== 'en'),
    { kind: 'APPLY_REVISION', locale: null, userId: 'u-editor', source: v1, locales: ['en'] },
  ])
})

test('rule 3: a whole restore prunes every EDIT entry, locale-less ones too, and keeps earlier restore entries', async () => {
  const { v1, v2 } = await publishedTwice(fx.ctx)
  await put(fx.ctx, DRAFT)
  await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v2, locales: ['fr'] }))
  await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1 }))
  expect(await activity(fx.ctx, ID)).toEqual([
    { kind: 'APPLY_REVISION', locale: null, userId: 'u-editor', source: v2, locales: ['fr'] },
    { kind: 'APPLY_REVISION', locale: null, userId: 'u-editor', source: v1, locales: null },
  ])
})

test('rule 3: a snapshot restore appends APPLY_SNAPSHOT naming the snapshot', async () => {
  await publishedTwice(fx.ctx)
  await put(fx.ctx, DRAFT)
  const snap = await ok(fx.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID } }), 201)
  await ok(applySnapshot(fx.ctx, { snapshotId: snap.id, locales: ['de'] }))
  const entries = await activity(fx.ctx, ID)
  expect(entries.at(-1)).toEqual({ kind: 'APPLY_SNAPSHOT', locale: null, userId: 'u-editor', source: snap.id, locales: ['de'] })
  expect(entries.filter((e: any) => e.kind === 'EDIT' && e.locale === 'de')).toEqual([])
})

test('rule 4: without a draft, a locale-list restore creates one from the source and the canonical', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  expect((await read(fx.ctx, `${ID}/draft`)).status).toBe(404)
  const [item] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['de'] }))
  expect(bare(item.document)).toEqual({
    id: `${ID}/draft`, contentType: 'page', fields: V1.fields,
    locales: { en: V2.locales.en, de: V1.locales.de, fr: V2.locales.fr },
    __dirtyLocales: ['de'],
  })
})

test('rule 4: without a draft, a whole restore creates it from the source', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  const [item] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1 }))
  expect(bare(item.document)).toEqual({
    id: `${ID}/draft`, contentType: 'page', fields: V1.fields,
    locales: { en: V1.locales.en, de: V1.locales.de, fr: V2.locales.fr },
    __dirtyLocales: ['de', 'en'],
  })
})

test('rule 2 on an unpublished document: unlisted locales come from its canonical and, not being live, are dirty', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  await ok(fx.ctx.call('POST', `/content/unpublish/${TEAM}`, { body: { ids: [ID] } }))
  await ok(fx.ctx.call('POST', `/content/discard-draft/${TEAM}`, { body: { ids: [ID] } }))
  expect((await read(fx.ctx, `${ID}/draft`)).status).toBe(404)
  const [item] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['en'] }))
  // de and fr are the document's own (unpublished) text: kept, and marked dirty like every
  // locale of a draft whose canonical is not live (docs/api/content.md#dirty-locales).
  expect(bare(item.document)).toEqual({
    id: `${ID}/draft`, contentType: 'page', fields: V1.fields,
    locales: { en: V1.locales.en, de: V2.locales.de, fr: V2.locales.fr },
    __dirtyLocales: ['de', 'en', 'fr'],
  })
  expect(bare((await read(fx.ctx, `${ID}/draft`)).body)).toEqual(bare(item.document))
})
