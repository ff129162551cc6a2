/**
 * Lifecycle operations of spec.md that write no stamp, no revision and no version:
 * unpublish (restore-to-draft), archive, soft-delete, copy, discard draft, and scheduling (and
 * cancelling a schedule, ours).
 * Each id runs in its own transaction and answers one batch item.
 */
import type { Db, Tx } from '../../db/client'
import { inOrder, runBatchWaiting } from '../batch'
import type { DocumentRow } from '../../db/schema'
import { canonicalIdUsed } from '../../db/queries/documents'
import { deleteSchedule, hasSchedule, upsertSchedule } from '../../db/queries/schedules'
import { deleteDoc, loadDoc, saveDoc } from '../../db/store'
import { badRequest, notFound } from '../errors'
import { parseTimestamp, timestampProblem } from '../timestamps'
import { recordUnpublished } from '../events/record'
import { asDocument, stripStamp } from '../documents/document'
import { batchItemId, draftId, isValidCanonicalId, parseId, scheduledId } from '../documents/ids'
import type { BatchItem, DocumentView } from '../documents/model'
import { loadLive, present, refreshDraftDirty } from './service'

export const LIFECYCLE_OPS = ['unpublish', 'archive', 'delete', 'copy', 'discard-draft', 'unschedule'] as const
export type LifecycleOp = (typeof LIFECYCLE_OPS)[number]

class Refusal extends Error {}

type Ctx = { teamId: string; userId: string }

/**
 * Runs `op` on every id; one failing id does not stop the others. Synchronous, for a caller that
 * cannot wait on timers (a test running it inside another transaction); routes use
 * `runLifecycleWaiting`.
 */
export async function runLifecycle(db: Db, op: LifecycleOp, ctx: Ctx, ids: string[]): Promise<BatchItem[]> {
  const items: BatchItem[] = []
  for (const id of ids) items.push(await lifecycleItem(db, op, ctx, id))
  return items
}

/**
 * `runLifecycle` for a request: before each item it waits on timers for another process's write
 * lock, so the api goes on answering meanwhile (core/batch.ts `runBatchWaiting`).
 */
export function runLifecycleWaiting(db: Db, op: LifecycleOp, ctx: Ctx, ids: string[]): Promise<BatchItem[]> {
  return runBatchWaiting(db, ids, inOrder(ids.length), async (id) => await lifecycleItem(db, op, ctx, id))
}

async function lifecycleItem(db: Db, op: LifecycleOp, ctx: Ctx, id: string): Promise<BatchItem> {
  try {
    const document = await db.transaction(async (tx) => await apply(tx, op, ctx, id), { behavior: 'immediate' })
    return { id, status: 0, ...(document ? { document } : {}) }
  } catch (e) {
    if (e instanceof Refusal) return { id: batchItemId(id), status: 1, reason: e.message }
    throw e
  }
}

function requireCanonicalId(id: string) {
  if (parseId(id).kind !== 'canonical') throw new Refusal('Expected a canonical document id, not a sibling id.')
}

async function requireCanonical(tx: Tx, teamId: string, id: string): Promise<DocumentRow> {
  const row = await loadLive(tx, teamId, id)
  if (!row) throw new Refusal('Document not found.')
  return row
}

/**
 * The canonical with the stamp removed and the given flags: it is no longer live. One already in
 * that state is left as it is (archiving twice writes nothing: same ETag, no new change vector).
 */
async function takeDown(tx: Tx, row: DocumentRow, flags: { archived?: boolean; deletedAt?: string }) {
  const stamped = row.body.__publishedAt !== undefined // the stamp is both fields or neither (stampOf)
  if (!row.published && !stamped && !flags.deletedAt && (flags.archived === undefined || flags.archived === row.archived)) return row
  return await saveDoc(tx, { ...row, body: stripStamp(row.body), published: false, ...flags })
}

async function apply(tx: Tx, op: LifecycleOp, ctx: Ctx, id: string): Promise<DocumentView | undefined> {
  requireCanonicalId(id)
  // Discard draft, unschedule, delete and copy act on the draft as much as on the canonical, so
  // they also serve a document that so far only has a draft (docs/api/restore.md#when-a-document-exists: a document exists
  // when its live canonical or its draft exists); unpublish and archive need a canonical.
  if (op === 'discard-draft') return await discardDraft(tx, ctx.teamId, id)
  if (op === 'unschedule') return await unschedule(tx, ctx.teamId, id)
  if (op === 'delete') return await softDelete(tx, ctx, id)
  const { teamId, userId } = ctx
  const draft = await loadLive(tx, teamId, draftId(id))
  const canonical = await loadLive(tx, teamId, id)
  if (op === 'copy') return await copy(tx, teamId, id, draft ?? canonical)
  if (!canonical) {
    if (!draft) throw new Refusal('Document not found.')
    throw new Refusal(`The document has only a draft: nothing of it is live to ${op}. Discard the draft or delete the document to remove it.`)
  }
  switch (op) {
    case 'unpublish': {
      // Restore-to-draft: the live content becomes the draft (unless one exists), and goes off the site.
      if (!draft) {
        const body = stripStamp(canonical.body)
        await saveDoc(tx, {
          teamId, id: draftId(id), canonicalId: id, kind: 'draft', collection: canonical.collection,
          body: { ...body, id: draftId(id), __dirtyLocales: Object.keys(asDocument(body).locales).sort() },
        })
      }
      const row = await takeDown(tx, canonical, {})
      if (canonical.published) await recordUnpublished(tx, { teamId, before: canonical, status: 'archived', userId })
      await refreshDraftDirty(tx, teamId, id, row) // nothing is live now: every draft locale is dirty
      return present(row)
    }
    case 'archive': {
      // Archived is retired: a pending scheduled publish would put it back on the site.
      await dropSchedule(tx, teamId, id)
      const row = await takeDown(tx, canonical, { archived: true })
      if (canonical.published) await recordUnpublished(tx, { teamId, before: canonical, status: 'archived', userId })
      await refreshDraftDirty(tx, teamId, id, row)
      return present(row)
    }
  }
}

/** A new canonical, never published, from the draft (or the canonical), at the first free copy id. */
async function copy(tx: Tx, teamId: string, id: string, source: DocumentRow | null): Promise<DocumentView> {
  if (!source) throw new Refusal('Document not found.')
  const copyId = await freeCopyId(tx, teamId, id)
  const body = { ...stripStamp(source.body), id: copyId }
  return present(await saveDoc(tx, { teamId, id: copyId, canonicalId: copyId, kind: 'canonical', collection: source.collection, body, published: false, archived: false, expect: null }))
}

/**
 * Removes the draft; refuses when there is none (or no document at all), and when the draft is
 * all there is of a document with a pending schedule: without it the document would not exist
 * (no history, no delete) while its schedule still published it.
 */
async function discardDraft(tx: Tx, teamId: string, id: string): Promise<undefined> {
  if (!await loadLive(tx, teamId, id) && await loadLive(tx, teamId, draftId(id)) && await hasSchedule(tx, teamId, id)) {
    throw new Refusal('The document has only a draft and a scheduled publish: unschedule it first, or delete the document.')
  }
  if (await deleteDoc(tx, teamId, draftId(id))) return undefined
  await requireCanonical(tx, teamId, id)
  throw new Refusal('There is no draft to discard.')
}


/** Removes `<id>/scheduled` and its schedule; false when there was neither. */
async function dropSchedule(tx: Tx, teamId: string, id: string): Promise<boolean> {
  const copy = await deleteDoc(tx, teamId, scheduledId(id))
  const schedule = await deleteSchedule(tx, teamId, id)
  return copy || schedule
}

/** Cancels a scheduled publish (the draft stays as it is); refuses when there is none. */
async function unschedule(tx: Tx, teamId: string, id: string): Promise<undefined> {
  if (await dropSchedule(tx, teamId, id)) return undefined
  if (!await loadLive(tx, teamId, id) && !await loadLive(tx, teamId, draftId(id))) throw new Refusal('Document not found.')
  throw new Refusal('There is no scheduled publish to cancel.')
}

/**
 * Soft delete: the canonical is marked deleted (revisions are kept; reads and version endpoints
 * answer 404) and its draft and schedule go. A document with only a draft loses the draft; a
 * canonical that is already soft-deleted is left as it is.
 */
async function softDelete(tx: Tx, { teamId, userId }: Ctx, id: string): Promise<undefined> {
  const canonical = await loadLive(tx, teamId, id)
  if (!canonical && !await loadLive(tx, teamId, draftId(id))) throw new Refusal('Document not found.')
  if (canonical) await takeDown(tx, canonical, { deletedAt: new Date().toISOString() })
  await deleteDoc(tx, teamId, draftId(id))
  await dropSchedule(tx, teamId, id)
  if (canonical?.published) await recordUnpublished(tx, { teamId, before: canonical, status: 'deleted', userId })
  return undefined
}

/**
 * `<id>-copy`, `<id>-copy-2`, ...: the first id no document uses in any form. A draft-only
 * document (or a soft-deleted one, or one with only a schedule) counts as used: a copy that took
 * its id would adopt its draft, and publishing the copy would publish that content.
 */
async function freeCopyId(tx: Tx, teamId: string, id: string): Promise<string> {
  const used = async (candidate: string) => await canonicalIdUsed(tx, teamId, candidate) || await hasSchedule(tx, teamId, candidate)
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${id}-copy` : `${id}-copy-${n}`
    if (!await used(candidate)) {
      if (!isValidCanonicalId(candidate)) throw new Refusal('The id is too long to copy.')
      return candidate
    }
  }
}

/**
 * Creates `<id>/scheduled` from the draft (or the canonical) for the dispatcher to publish at
 * `publishAt`, stamped with the scheduling user. Replaces an earlier schedule.
 */
export async function schedulePublish(db: Db, input: { teamId: string; userId: string; id: string; publishAt: string }) {
  const at = parseTimestamp(input.publishAt)
  if (at === null) throw badRequest('invalid_body', timestampProblem('publishAt'))
  if (parseId(input.id).kind !== 'canonical') throw badRequest('sibling_id', 'Schedule takes a canonical id.')
  if (!isValidCanonicalId(input.id)) throw badRequest('invalid_id', 'The id is not a valid canonical id.')
  return await db.transaction(
    async (tx) => {
      const { teamId, id } = input
      const source = await loadDoc(tx, teamId, draftId(id)) ?? await loadLive(tx, teamId, id)
      if (!source) throw notFound('Document not found.')
      const body = stripStamp(source.body)
      const row = await saveDoc(tx, {
        teamId, id: scheduledId(id), canonicalId: id, kind: 'scheduled', collection: source.collection,
        body: { ...body, id: scheduledId(id) },
      })
      const schedule = { teamId, documentId: id, publishAt: at, scheduledBy: input.userId, leaseToken: null, leaseExpiresAt: null }
      await upsertSchedule(tx, schedule)
      return { id: row.id, documentId: id, publishAt: new Date(at).toISOString(), scheduledBy: input.userId }
    },
    { behavior: 'immediate' },
  )
}
