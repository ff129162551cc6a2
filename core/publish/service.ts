/**
 * Publish: the one function behind batch publish, the scheduled-publish worker, the
 * assistant tool and the CLI seed (spec.md "States and transitions", first row).
 *
 * The live canonical gets the stamp and, in the same transaction, one stamped revision
 * holding its exact state: one new Published Version. Because save and revision commit
 * together, no second publish can land between them, so the spec's `superseded` outcome
 * cannot happen here (the metric still exports it, at zero).
 */
import type { Db, Tx } from '../../db/client'
import { runBatchWaiting } from '../batch'
import { deleteDoc, loadDoc, putRevision, saveDoc } from '../../db/store'
import { asDocument, dirtyLocales, fieldsChanged, roundTripTimestamp, stripStamp } from '../documents/document'
import { batchItemId, draftId, isStorableId, parseId, scheduledId } from '../documents/ids'
import type { Document, PublishItem } from '../documents/model'
import { loadLive, present } from '../content/service'
import type { DocumentRow } from '../../db/schema'
import type { Metrics } from '../metrics'
import { getContentType, getTeam } from '../teams/service'
import { recordPublished } from '../events/record'
import { echoList } from '../errors'

export interface PublishInput {
  teamId: string
  id: string
  /** Publish only these locales of the draft; the others stay as they are live. */
  locales?: string[]
  /** Stamp author: the publishing user, the scheduling user, or `cli`. */
  stampUserId: string
  /** Acting user reported to webhooks; `null` for a scheduled publish. */
  actorUserId: string | null
  /** `worker` publishes from `<id>/scheduled` and feeds the worker metric; `cli` publishes the canonical as it is. */
  source: 'api' | 'worker' | 'cli' | 'assistant'
  /**
   * By canonical id: what was live before the caller rewrote the canonical in place earlier in
   * the same transaction (the CLI seed, `writeDocument`'s `publishesNext`). The publish's event
   * compares with it, so one event names the old paths; an id not in the map compares with the
   * canonical as stored.
   */
  liveBefore?: ReadonlyMap<string, DocumentRow>
  now?: Date
}

class PublishRefusal extends Error {}

/**
 * Publishes one document in its own transaction and returns the outcome as a batch item:
 * status 0 (a version recorded) or 1 (refused, nothing written); a failed transaction throws.
 * It counts nothing: an api publish is counted by `publishCounted`, a scheduled one in the
 * database by core/publish/scheduled.ts, in the publish's own transaction.
 */
export async function publishOne(db: Db, input: PublishInput): Promise<PublishItem> {
  try {
    const result = await db.transaction(async (tx) => await publishInTx(tx, input), { behavior: 'immediate' })
    return { id: input.id, status: 0, document: result.document }
  } catch (e) {
    if (e instanceof PublishRefusal) return { id: batchItemId(input.id), status: 1, reason: e.message }
    throw e
  }
}

/** `publishOne`, counted in `service_api_publish_revisions`: `ok` per version recorded, `error` per failure (thrown on). */
export async function publishCounted(db: Db, metrics: Metrics | null, input: PublishInput): Promise<PublishItem> {
  try {
    const item = await publishOne(db, input)
    if (item.status === 0) metrics?.apiPublishRevisions.inc({ outcome: 'ok' })
    return item
  } catch (e) {
    metrics?.apiPublishRevisions.inc({ outcome: 'error' })
    throw e
  }
}

/**
 * Publishes `ids` (see `parentsFirst` for the order); the answers keep the order of `ids`. For a
 * caller already inside a transaction (the CLI seed): the lock is its own. A request uses
 * `publishBatchWaiting`.
 */
export async function publishBatch(db: Db, metrics: Metrics | null, ids: readonly string[], input: Omit<PublishInput, 'id'>): Promise<PublishItem[]> {
  const answers: PublishItem[] = []
  for (const i of await publishOrder(db, input.teamId, ids, input.source)) answers[i] = await publishCounted(db, metrics, { ...input, id: ids[i]! })
  return answers
}

/**
 * `publishBatch` for a request: before each item it waits on timers for another process's write
 * lock, so the api goes on answering meanwhile; a lock held past busy_timeout after the first
 * item refuses that item and the rest with BUSY_REASON (core/batch.ts `runBatchWaiting`).
 */
export async function publishBatchWaiting(db: Db, metrics: Metrics | null, ids: readonly string[], input: Omit<PublishInput, 'id'>): Promise<PublishItem[]> {
  return runBatchWaiting(db, ids, await publishOrder(db, input.teamId, ids, input.source), async (id) => await publishCounted(db, metrics, { ...input, id }))
}

/** The order to publish `ids` of one team in by `source` (indices into `ids`): see `parentsFirst`. */
export async function publishOrder(db: Db, teamId: string, ids: readonly string[], source: PublishInput['source']): Promise<number[]> {
  if (ids.length < 2) return parentsFirst(ids, () => null)
  // parentsFirst is pure: it asks only for the parents of ids in the batch, read here first.
  const parents = new Map<string, string | null>()
  for (const id of ids) if (!parents.has(id)) parents.set(id, await parentOf(db, teamId, id, source))
  return parentsFirst(ids, (id) => parents.get(id) ?? null)
}

/**
 * The sibling a publish of `id` takes when it exists (else the canonical): the worker publishes the
 * scheduled sibling; the CLI seed the canonical it has just written (an editor's draft is theirs
 * to publish, not the seed's); everyone else the draft. `publishOrder` and the publish both ask here.
 */
function sourceSiblingId(id: string, source: PublishInput['source']): string | null {
  return source === 'worker' ? scheduledId(id) : source === 'cli' ? null : draftId(id)
}

/**
 * The parent page a publish of `id` will have: what the publish takes (the scheduled sibling for
 * the worker, the draft for an editor, the canonical for the CLI), else the canonical's.
 */
async function parentOf(db: Db, teamId: string, id: string, source: PublishInput['source']): Promise<string | null> {
  if (!isStorableId(id)) return null
  const sibling = sourceSiblingId(id, source)
  const row = (sibling === null ? null : await loadLive(db, teamId, sibling)) ?? await loadLive(db, teamId, id)
  const parent = (row?.body.fields as { parent?: unknown } | undefined)?.parent
  return typeof parent === 'string' && parent !== '' ? parent : null
}

/**
 * The order to publish a batch in (indices into `ids`): a page after its parent when both are
 * in the batch, otherwise as requested. A child published before its parent would get its
 * event while the parent is not live yet, so no URL, and no later event would name its path.
 * The answers keep the request's order. A parent cycle (no page in it has a URL) is broken
 * where the walk meets it.
 */
export function parentsFirst(ids: readonly string[], parentOf: (id: string) => string | null): number[] {
  if (ids.length < 2) return ids.map((_, i) => i)
  const firstIndex = new Map<string, number>()
  ids.forEach((id, i) => firstIndex.has(id) || firstIndex.set(id, i))
  const order: number[] = []
  const state = new Array<'visiting' | 'done' | undefined>(ids.length)
  const visit = (i: number) => {
    if (state[i]) return // done, or on the walk already (a cycle)
    state[i] = 'visiting'
    const parent = parentOf(ids[i]!)
    const p = parent === null ? undefined : firstIndex.get(parent)
    if (p !== undefined && p !== i) visit(p)
    state[i] = 'done'
    order.push(i)
  }
  ids.forEach((_, i) => visit(i))
  return order
}

async function publishInTx(tx: Tx, input: PublishInput) {
  const { teamId, id } = input
  const parsed = parseId(id)
  if (parsed.kind !== 'canonical') throw new PublishRefusal('Expected a canonical document id, not a sibling id.')
  // An id the store cannot hold as given names no document (it would reach the `\ufffd` spelling).
  if (!isStorableId(id)) throw new PublishRefusal('Document not found.')
  const team = (await getTeam(tx, teamId))!
  const stored = await loadDoc(tx, teamId, id)
  const canonical = stored && !stored.deletedAt ? stored : null
  const sibling = sourceSiblingId(id, input.source)
  const sourceRow = sibling === null ? null : await loadDoc(tx, teamId, sibling)
  const source = sourceRow ?? canonical
  if (!source) throw new PublishRefusal('Document not found.')
  const unknown = (input.locales ?? []).filter((l) => !team.locales.includes(l))
  if (unknown.length > 0) throw new PublishRefusal(`Unknown locale(s): ${echoList(unknown)}.`)
  const type = await getContentType(tx, teamId, String(source.body.contentType))
  if (!type) throw new PublishRefusal('The content type of this document no longer exists.')

  const from = asDocument(stripStamp(source.body))
  // What the site shows now: nothing when the canonical was never published, or was taken down.
  const live = canonical?.published ? asDocument(stripStamp(canonical.body)) : null
  // contract.md: `locales` publishes only those locales of the draft, whether or not a canonical
  // is live; without one (never published, unpublished, archived, soft-deleted) the others are not live.
  const locales = input.locales ? mergeLocales(live?.locales ?? {}, from.locales, input.locales) : from.locales
  const stampedAt = roundTripTimestamp(input.now ?? new Date())
  const body: Document = { ...from, id, locales, __publishedBy: input.stampUserId, __publishedAt: stampedAt }

  const saved = await saveDoc(tx, {
    teamId, id, canonicalId: id, kind: 'canonical', collection: type.collection,
    body, published: true, archived: false, deletedAt: null, current: stored,
  })
  await putRevision(tx, { teamId, documentId: id, changeVector: saved.changeVector, body: saved.body, stamped: true })

  if (input.source === 'worker') {
    await deleteDoc(tx, teamId, scheduledId(id))
  }
  const draft = input.source === 'worker' || input.source === 'cli' ? await loadDoc(tx, teamId, draftId(id)) : sourceRow
  if (draft) await settleDraft(tx, draft, body)
  else if (source === canonical && !live && input.locales) await keepUnpublished(tx, canonical, from, body)
  await recordPublished(tx, { teamId, before: input.liveBefore?.get(id) ?? canonical, after: saved, userId: input.actorUserId, locales: input.locales ?? Object.keys(locales) })
  return { document: present(saved) }
}

/**
 * Some locales of a canonical that was not live and has no draft went live: the others must
 * neither go live nor be lost, so they wait in a new draft holding `content`, dirty against
 * `live`. Nothing is left behind when every locale went live (the fields come from `content`).
 */
async function keepUnpublished(tx: Tx, canonical: DocumentRow, content: Document, live: Document) {
  const dirty = dirtyLocales(content, live)
  if (dirty.length === 0) return
  const id = draftId(canonical.id)
  await saveDoc(tx, {
    teamId: canonical.teamId, id, canonicalId: canonical.id, kind: 'draft', collection: canonical.collection,
    body: { ...content, id, __dirtyLocales: dirty }, published: false, archived: false, deletedAt: null, current: null,
  })
}

/** The live locales with `selected` taken from the draft (a selected locale the draft lacks is taken down). */
function mergeLocales(live: Document['locales'], draft: Document['locales'], selected: string[]) {
  const out = { ...live }
  for (const l of selected) {
    if (l in draft) out[l] = draft[l]!
    else delete out[l]
  }
  return out
}

/**
 * After a publish the draft keeps only what is still unpublished; a draft equal to the live
 * document goes away. `dirtyLocales` counts a locale live but absent from the draft as dirty,
 * so a draft that still takes a locale down is kept.
 */
async function settleDraft(tx: Tx, draft: DocumentRow | null, live: Document) {
  if (!draft) return
  const body = asDocument(draft.body)
  const dirty = dirtyLocales(body, live)
  if (dirty.length === 0 && !fieldsChanged(live, body)) {
    await deleteDoc(tx, draft.teamId, draft.id)
  } else {
    await saveDoc(tx, { ...draft, body: { ...body, __dirtyLocales: dirty }, current: draft })
  }
}
