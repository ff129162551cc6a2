/**
 * spec.md rule 5 at the service seam: a write that lands between the restore's read and its
 * conditional write (draft or activity document) makes the restore fail with 409 and leave
 * nothing behind. `beforeWrite` runs exactly there; the concurrent writes are the real ones.
 */
import { expect, test } from 'bun:test'
import { appendActivity } from '../../../core/documents/activity'
import { writeDocument } from '../../../core/content/service'
import { BatchError } from '../../../core/errors'
import { publishOne } from '../../../core/publish/service'
import { runLifecycle } from '../../../core/content/lifecycle'
import { readRestoreRequest } from '../../../core/restore/request'
import { CONCURRENT_CHANGE, restore } from '../../../core/restore/service'
import { TEAM } from '../../helpers'
import { DRAFT, ID, publishedTwice, put, read, restoreFixture } from './fixtures'

const fx = restoreFixture({ publishedTwice: true })

const caller = { userId: 'u-editor', teamId: TEAM, capabilities: new Set(['EditContent', 'ChangeLiveContent']) }
const cmd = () => readRestoreRequest({ kind: 'revision', documentId: ID, version: fx.v1, locales: ['de'] })
const state = async () => ({ draft: (await read(fx.ctx, `${ID}/draft`)).body, activity: (await read(fx.ctx, `${ID}/activity`)).body })

async function refusal(run: () => unknown): Promise<BatchError> {
  try {
    await run()
  } catch (e) {
    if (e instanceof BatchError) return e
    throw e
  }
  throw new Error('expected a refusal')
}

test('a draft edit between read and write: 409, the edit stands, no restore entry', async () => {
  await put(fx.ctx, DRAFT)
  const concurrent = { ...DRAFT, locales: { ...DRAFT.locales, fr: { title: 'concurrent', slug: 'c' } } }
  const e = await refusal(async () =>
    await restore(fx.ctx.db, caller, cmd(), { beforeWrite: async () => await writeDocument(fx.ctx.db, { teamId: TEAM, userId: 'u-other', doc: concurrent }) }),
  )
  expect({ status: e.status, item: e.item }).toEqual({ status: 409, item: { id: ID, status: 1, reason: CONCURRENT_CHANGE } })
  const after = await state()
  expect(after.draft.locales).toEqual(concurrent.locales)
  expect(after.activity.entries.at(-1)).toMatchObject({ kind: 'EDIT', locale: 'fr', userId: 'u-other' })
  expect(after.activity.entries.some((x: { kind: string }) => x.kind === 'APPLY_REVISION')).toBe(false)
})

test('an activity-only change between read and write: 409, the draft is not written', async () => {
  await put(fx.ctx, DRAFT)
  const before = await state()
  const entry = { kind: 'EDIT' as const, locale: 'fr', userId: 'u-other', at: new Date().toISOString() }
  const e = await refusal(async () => await restore(fx.ctx.db, caller, cmd(), { beforeWrite: async () => await appendActivity(fx.ctx.db, TEAM, ID, [entry]) }))
  expect({ status: e.status, item: e.item }).toEqual({ status: 409, item: { id: ID, status: 1, reason: CONCURRENT_CHANGE } })
  const after = await state()
  expect(after.draft).toEqual(before.draft)
  expect(after.activity.entries).toEqual([...before.activity.entries, entry])
})

test('a draft created between read and write (there was none): 409, the concurrent draft stands', async () => {
  const e = await refusal(async () => await restore(fx.ctx.db, caller, cmd(), { beforeWrite: async () => await writeDocument(fx.ctx.db, { teamId: TEAM, userId: 'u-other', doc: DRAFT }) }))
  expect(e.status).toBe(409)
  expect((await read(fx.ctx, `${ID}/draft`)).body.locales).toEqual(DRAFT.locales)
})

test('a draft discarded between read and write (activity untouched): 409, no draft is re-created', async () => {
  await put(fx.ctx, DRAFT)
  const before = await state()
  const discard = () => runLifecycle(fx.ctx.db, 'discard-draft', { teamId: TEAM, userId: 'u-other' }, [ID])
  const e = await refusal(async () => await restore(fx.ctx.db, caller, cmd(), { beforeWrite: discard }))
  expect(e.status).toBe(409)
  expect((await read(fx.ctx, `${ID}/draft`)).status).toBe(404)
  expect((await read(fx.ctx, `${ID}/activity`)).body).toEqual(before.activity)
})

test('a publish between read and write, no draft: 409, since the merge read the old canonical', async () => {
  const before = await state()
  const publishAgain = async () => await publishOne(fx.ctx.db, { teamId: TEAM, id: ID, stampUserId: 'u-other', actorUserId: 'u-other', source: 'api' })
  const e = await refusal(async () => await restore(fx.ctx.db, caller, cmd(), { beforeWrite: publishAgain }))
  expect(e.status).toBe(409)
  const after = await state()
  expect(after.draft).toEqual({ error: 'not_found', message: 'Document not found.' })
  expect(after.activity).toEqual(before.activity)
})

test('with nothing in between the same call lands', async () => {
  await put(fx.ctx, DRAFT)
  let ran = false
  const item = await restore(fx.ctx.db, caller, cmd(), { beforeWrite: () => { ran = true } })
  expect(ran).toBe(true)
  expect(item.status).toBe(0)
  expect((await state()).activity.entries.at(-1)).toMatchObject({ kind: 'APPLY_REVISION', source: fx.v1, locales: ['de'] })
})
