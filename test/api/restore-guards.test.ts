/**
 * spec.md "Restore semantics (shared with snapshot restore)", rule by rule, through HTTP.
 * Error rows are in restore-errors.test.ts; races in restore-race.test.ts.
 */
import { describe, expect, test } from 'bun:test'
import { TEAM, TOKENS } from '../helpers'
import { activity, applySnapshot, applyVersion, bare, cv, DRAFT, ID, ok, publish, publishedTwice, put, read, restoreFixture, V1, V2, versionRefs } from '../core/restore/fixtures'

const fx = restoreFixture()

test('rule 5: a stale If-Match is refused with 409 and changes nothing', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  const seen = await put(fx.ctx, DRAFT)
  await put(fx.ctx, { ...DRAFT, locales: { ...DRAFT.locales, en: { title: 'someone else', slug: 'about' } } })
  const draftBefore = (await read(fx.ctx, `${ID}/draft`)).body
  const activityBefore = (await read(fx.ctx, `${ID}/activity`)).body
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1 }, { headers: { 'if-match': `"${cv(seen)}"` } })
  expect(res.status).toBe(409)
  expect(res.body).toEqual([{ id: ID, status: 1, reason: 'The draft is not at the version If-Match names: it changed since you read it, or there is no draft. Save your pending edits, re-read it and retry.' }])
  expect((await read(fx.ctx, `${ID}/draft`)).body).toEqual(draftBefore)
  expect((await read(fx.ctx, `${ID}/activity`)).body).toEqual(activityBefore)
  // Re-read and retry: it lands.
  const fresh = (await read(fx.ctx, `${ID}/draft`)).body
  expect((await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1 }, { headers: { 'if-match': `"${cv(fresh)}"` } })).status).toBe(200)
})

test('rule 5: If-Match `*` holds when a draft exists, a list when one tag is the draft, a weak tag never', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  const restoreWith = (ifMatch: string) => applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['en'] }, { headers: { 'if-match': ifMatch } })
  const conflict = [{ id: ID, status: 1, reason: 'The draft is not at the version If-Match names: it changed since you read it, or there is no draft. Save your pending edits, re-read it and retry.' }]
  // No draft yet: `*` does not hold.
  expect(await restoreWith('*').then((r) => ({ status: r.status, body: r.body }))).toEqual({ status: 409, body: conflict })
  const seen = await put(fx.ctx, DRAFT)
  expect(await restoreWith(`W/"${cv(seen)}"`).then((r) => ({ status: r.status, body: r.body }))).toEqual({ status: 409, body: conflict })
  expect((await restoreWith('*')).status).toBe(200)
  const fresh = (await read(fx.ctx, `${ID}/draft`)).body
  expect((await restoreWith(`"stale", "${cv(fresh)}"`)).status).toBe(200)
  // A header that is no entity-tag list: 400 as an object (refused before the store), not a 409 to retry.
  const malformed = await restoreWith('W/"x", "y')
  expect({ status: malformed.status, body: malformed.body }).toEqual({ status: 400, body: { error: 'invalid_if_match', message: expect.stringContaining('If-Match must be') } })
})

test('rule 6: restoring never publishes: canonical change vector, body and versions unchanged', async () => {
  const { v1 } = await publishedTwice(fx.ctx)
  await put(fx.ctx, DRAFT)
  const canonicalBefore = (await read(fx.ctx, ID)).body
  const versionsBefore = await versionRefs(fx.ctx, ID)
  await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1 }))
  await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['de', 'fr'] }))
  const canonicalAfter = (await read(fx.ctx, ID)).body
  expect(canonicalAfter).toEqual(canonicalBefore)
  expect(cv(canonicalAfter)).toBe(cv(canonicalBefore))
  expect(await versionRefs(fx.ctx, ID)).toEqual(versionsBefore)
})

test('apply-snapshot and apply-version with kind snapshot are one operation with the same answer', async () => {
  await publishedTwice(fx.ctx)
  await put(fx.ctx, DRAFT)
  const snap = await ok(fx.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID } }), 201)
  await put(fx.ctx, { ...DRAFT, fields: { parent: null, sku: 'changed' }, locales: { en: { title: 'later', slug: 'l' } } })
  const viaSnapshot = await ok(applySnapshot(fx.ctx, { snapshotId: snap.id, documentId: ID }))
  await put(fx.ctx, { ...DRAFT, fields: { parent: null, sku: 'changed' }, locales: { en: { title: 'later', slug: 'l' } } })
  const viaVersion = await ok(applyVersion(fx.ctx, { kind: 'snapshot', snapshotId: snap.id }))
  expect(bare(viaSnapshot[0].document)).toEqual(bare(viaVersion[0].document))
  // fr was live when the snapshot was taken and the snapshotted draft had dropped it: it stays out.
  expect(bare(viaSnapshot[0].document)).toEqual({
    id: `${ID}/draft`, contentType: 'page', fields: DRAFT.fields,
    locales: { en: DRAFT.locales.en, de: DRAFT.locales.de },
    __dirtyLocales: ['de', 'en'],
  })
})

test('rule 1: a whole restore takes back from the live canonical only the locales published since the source was taken', async () => {
  const { v1 } = await publishedTwice(fx.ctx) // fr first published by v2
  await put(fx.ctx, DRAFT) // drops fr
  const snap = await ok(fx.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID } }), 201)
  const locales = async (res: Promise<{ status: number; body: any }>) => Object.keys((await ok(res))[0].document.locales).sort()
  // Nothing published since the snapshot: the draft it holds comes back as it was, fr dropped.
  expect(await locales(applySnapshot(fx.ctx, { snapshotId: snap.id }))).toEqual(['de', 'en'])
  // v1 was taken before fr was first published: fr comes back from the live canonical.
  expect(await locales(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1 }))).toEqual(['de', 'en', 'fr'])
  // A publish carrying fr after the snapshot: now fr is "published since" the snapshot too.
  await put(fx.ctx, { ...V2, id: `${ID}/draft` })
  await publish(fx.ctx, ID)
  const restored = (await ok(applySnapshot(fx.ctx, { snapshotId: snap.id })))[0].document
  expect({ locales: Object.keys(restored.locales).sort(), fr: restored.locales.fr, dirty: restored.__dirtyLocales }).toEqual({ locales: ['de', 'en', 'fr'], fr: V2.locales.fr, dirty: ['de', 'en'] })
  // Not live (archived): there is no live canonical to take anything back from.
  expect((await fx.ctx.call('POST', `/content/archive/${TEAM}`, { body: { ids: [ID] } })).body[0].status).toBe(0)
  expect(await locales(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: v1 }))).toEqual(['de', 'en'])
})

test('a translator (EditContent only) restores into a never-published document', async () => {
  await put(fx.ctx, { ...V1, id: 'pages/new/draft' })
  const snap = await ok(fx.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/new' }, token: TOKENS.translator }), 201)
  const [item] = await ok(applySnapshot(fx.ctx, { snapshotId: snap.id, locales: ['en'] }, { token: TOKENS.translator }))
  expect(item).toMatchObject({ id: 'pages/new', status: 0 })
  expect(bare(item.document).locales).toEqual(V1.locales)
})

/**
 * A soft-deleted canonical counts as absent throughout the restore (docs/api/restore.md#when-a-document-exists: a document exists
 * for restore when its live canonical or its draft exists): the read and the conditional write
 * agree on that, so a restore into a draft written since lands instead of a 409 on every retry.
 */
describe('a soft-deleted canonical with a draft written since', () => {
  const GONE = 'pages/l2'
  async function deletedWithDraft() {
    await put(fx.ctx, { ...V1, id: GONE })
    await publish(fx.ctx, GONE)
    const [ref] = await versionRefs(fx.ctx, GONE)
    const snap = await ok(fx.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: GONE } }), 201)
    expect(await ok(fx.ctx.call('POST', `/content/delete/${TEAM}`, { body: { ids: [GONE] } }))).toEqual([{ id: GONE, status: 0 }])
    const draft = await put(fx.ctx, { id: `${GONE}/draft`, contentType: 'page', fields: { parent: null }, locales: { en: { title: 'New life', slug: 'l2' } } })
    return { ref: ref!, snap, draft }
  }

  test('a snapshot restores into the draft, whole or by locale, and the canonical stays deleted', async () => {
    const { snap, draft } = await deletedWithDraft()
    expect(draft.__dirtyLocales).toEqual(['en']) // nothing is live to compare with
    const [byLocale] = await ok(applySnapshot(fx.ctx, { snapshotId: snap.id, locales: ['de'] }))
    expect(byLocale).toEqual({ id: GONE, status: 0, document: expect.any(Object) })
    expect(bare(byLocale.document)).toEqual({
      id: `${GONE}/draft`, contentType: 'page', fields: V1.fields,
      locales: { en: { title: 'New life', slug: 'l2' }, de: V1.locales.de },
      __dirtyLocales: ['de', 'en'],
    })
    const [whole] = await ok(applyVersion(fx.ctx, { kind: 'snapshot', snapshotId: snap.id }))
    // Rule 1 with no live canonical: nothing to revert from, the source is the whole draft.
    expect(bare(whole.document)).toEqual({ id: `${GONE}/draft`, contentType: 'page', fields: V1.fields, locales: V1.locales, __dirtyLocales: ['de', 'en'] })
    expect((await read(fx.ctx, GONE)).status).toBe(404)
    expect((await fx.ctx.call('GET', `/content/versions/${TEAM}?id=${GONE}`)).status).toBe(404)
  })

  test('a version of the deleted canonical is 404, as the version endpoints answer, and the draft is untouched', async () => {
    const { ref, draft } = await deletedWithDraft()
    for (const locales of [null, ['de']]) {
      const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: GONE, version: ref, locales })
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404, body: [{ id: GONE, status: 1, reason: 'No such published version of this document.' }],
      })
    }
    expect((await fx.ctx.call('GET', `/content/version/${TEAM}?id=${GONE}&version=${ref}`)).status).toBe(404)
    expect((await read(fx.ctx, `${GONE}/draft`)).body).toEqual(draft)
  })
})
