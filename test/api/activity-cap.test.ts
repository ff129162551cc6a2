/**
 * README's promise: the activity document keeps the newest 500 entries, on every path that
 * writes it (an edit by POST, a JSON Patch, a restore of a version, a restore of a snapshot).
 * Each test starts from a log already past the cap, so a path that skipped the cap would leave
 * more than 500, and a log over the cap is brought back to it by the next write.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { MAX_ACTIVITY_ENTRIES, saveActivity, type ActivityEntry } from '../../core/documents/activity'
import { createTestContext, enc, TEAM, type TestContext } from '../helpers'
import { applySnapshot, applyVersion, cv, DRAFT, ID, ok, publish, publishedTwice, put, read } from '../core/restore/fixtures'

const OLD = 600
const old: ActivityEntry[] = Array.from({ length: OLD }, (_, i) => ({ kind: 'APPLY_REVISION', locale: null, userId: 'u-old', at: '2026-01-01T00:00:00.000Z', source: `old-${i}`, locales: null }))

let ctx: TestContext
let v1: string
let snapshotId: string
beforeEach(async () => {
  ctx = await createTestContext()
  ;({ v1 } = await publishedTwice(ctx))
  await put(ctx, DRAFT)
  snapshotId = (await ok(ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID } }), 201)).id
  const current = (await read(ctx, `${ID}/activity`)).body
  await saveActivity(ctx.db, TEAM, ID, { id: `${ID}/activity`, entries: old }, cv(current))
})
afterEach(() => ctx.close())

const entries = async (): Promise<ActivityEntry[]> => (await read(ctx, `${ID}/activity`)).body.entries

/** The newest 500: the oldest entries left, the path's own entries last. */
async function expectCapped(added: (e: ActivityEntry) => boolean) {
  const after = await entries()
  expect(after.length).toBe(MAX_ACTIVITY_ENTRIES)
  const fresh = after.filter(added)
  expect(fresh.length).toBeGreaterThan(0)
  expect(after.slice(-fresh.length)).toEqual(fresh)
  const kept = after.slice(0, -fresh.length)
  expect(kept).toEqual(old.slice(OLD - kept.length))
}

test('an edit (POST) keeps the newest 500', async () => {
  await put(ctx, { ...DRAFT, locales: { ...DRAFT.locales, en: { title: 'edited', slug: 'e' } } })
  await expectCapped((e) => e.kind === 'EDIT' && e.userId === 'u-editor' && e.locale === 'en')
})

test('a JSON Patch keeps the newest 500', async () => {
  const res = await ctx.call('PATCH', `/content/${TEAM}?id=${enc(`${ID}/draft`)}`, { body: [{ op: 'replace', path: '/locales/de/title', value: 'patched' }] })
  expect(res.status).toBe(200)
  await expectCapped((e) => e.kind === 'EDIT' && e.userId === 'u-editor' && e.locale === 'de')
})

test('a whole-draft restore of a version keeps the newest 500', async () => {
  const [item] = await ok(applyVersion(ctx, { kind: 'revision', documentId: ID, version: v1 }))
  expect(item.status).toBe(0)
  await expectCapped((e) => e.kind === 'APPLY_REVISION' && e.source === v1)
})

test('a 1-locale restore of a version keeps the newest 500', async () => {
  await ok(applyVersion(ctx, { kind: 'revision', documentId: ID, version: v1, locales: ['de'] }))
  await expectCapped((e) => e.kind === 'APPLY_REVISION' && e.source === v1)
})

test('a restore of a snapshot keeps the newest 500', async () => {
  await ok(applySnapshot(ctx, { snapshotId, documentId: ID }))
  await expectCapped((e) => e.kind === 'APPLY_SNAPSHOT' && e.source === snapshotId)
})

test('a publish writes no activity entry: the activity document is left as it is', async () => {
  const before = (await read(ctx, `${ID}/activity`)).body
  await publish(ctx, ID)
  expect((await read(ctx, `${ID}/activity`)).body).toEqual(before)
})
