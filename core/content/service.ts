/**
 * Reading and writing documents (contract.md "Documents"): create or replace a canonical or
 * a draft, JSON Patch, and the presentation of a stored row as a live document.
 */
import { Value } from '@sinclair/typebox/value'
import type { Db, Tx } from '../../db/client'
import type { DocumentRow } from '../../db/schema'
import { ConcurrencyError, loadDoc, saveDoc } from '../../db/store'
import { AppError, badRequest, echoList, notFound } from '../errors'
import { ifMatchHolds } from '../documents/if-match'
import { getContentType, getTeam, type ContentTypeRow } from '../teams/service'
import { appendActivity, type ActivityEntry } from '../documents/activity'
import { asDocument, changedLocales, dirtyLocales, fieldsChanged, same, stampOf, stripStamp } from '../documents/document'
import { applyPatch, readPatch } from '../documents/json-patch'
import { draftId, isStorableId, isValidCanonicalId, MAX_CANONICAL_ID_LENGTH, parseId } from '../documents/ids'
import { isNoParent, pageFieldProblem } from '../events/urls'
import { Document, DocumentInput, type DocumentView } from '../documents/model'
import { recordChangedInPlace } from '../events/record'

/**
 * A stored row as served: its body and `@metadata` (collection, change vector, flags). Typed as a canonical or draft (what every
 * write and batch answer serves); `GET /content` also serves sibling documents through it.
 */
export function present(row: DocumentRow): DocumentView {
  return {
    ...row.body,
    '@metadata': {
      '@collection': row.collection,
      '@change-vector': row.changeVector,
      '@last-modified': row.updatedAt,
      ...(row.kind === 'canonical' ? { published: row.published, archived: row.archived } : {}),
    },
  } as DocumentView
}

/**
 * Loads a live (not soft-deleted) document row, or null. Over-long ids and ids with a lone
 * surrogate simply do not exist (the latter would otherwise find the `\ufffd` spelling).
 */
export async function loadLive(conn: Db | Tx, teamId: string, id: string): Promise<DocumentRow | null> {
  if (!isStorableId(id)) return null
  const row = await loadDoc(conn, teamId, id)
  return row && !row.deletedAt ? row : null
}

/**
 * Brings the draft's `__dirtyLocales` in line with what is live now, after the live canonical
 * changed without a publish (rewritten in place, unpublished, archived): a locale the draft
 * still holds as it was is dirty once live differs from it, or publishing the draft would undo
 * the live change unseen. Recomputed as a draft write and a publish do (`dirtyLocales`); the
 * draft's content is untouched, and a draft whose set is already right is not rewritten.
 */
export async function refreshDraftDirty(tx: Db | Tx, teamId: string, canonicalId: string, live: DocumentRow | null): Promise<void> {
  const draft = await loadLive(tx, teamId, draftId(canonicalId))
  if (!draft) return
  const body = asDocument(draft.body)
  const dirty = dirtyLocales(body, live?.published ? asDocument(live.body) : null)
  if (same(dirty, body.__dirtyLocales ?? [])) return
  await saveDoc(tx, { ...draft, body: { ...draft.body, __dirtyLocales: dirty }, current: draft })
}

export async function readDocument(db: Db, teamId: string, id: string | undefined) {
  if (!id) throw badRequest('missing_id', 'Query parameter `id` is required.')
  const row = await loadLive(db, teamId, id)
  if (!row) throw notFound(`Document not found.`)
  return row
}

const invalidId = () =>
  badRequest('invalid_id', `The id must be a canonical id (path segments, no \`.\`/\`..\`, at most ${MAX_CANONICAL_ID_LENGTH} characters, well-formed unicode, not ending in a reserved \`/draft\`, \`/scheduled\`, \`/activity\` or \`/snapshot\` segment) or \`<id>/draft\`.`)
const conflict = () => new AppError(409, 'conflict', 'The document was changed by someone else; re-read it and retry.')
/** An If-Match that does not hold: the caller's copy is stale, or the document does not exist (`*`). */
const ifMatchFailed = () =>
  new AppError(409, 'conflict', 'The document is not at the version If-Match names: it changed since you read it, or it does not exist (deleted documents do not). Re-read it and retry.')

/**
 * Creates or replaces a canonical or draft. The stamp, `__dirtyLocales`, `@metadata` and a
 * client `Id` are removed from the body (spec.md); a draft's dirty locales are computed
 * against the canonical. Appends one `EDIT` activity entry per changed locale, and a
 * locale-less one when non-localizable fields changed.
 */
export async function writeDocument(
  db: Db,
  input: {
    teamId: string; userId: string; doc: DocumentInput; ifMatch?: string
    /** The caller holds `ChangeLiveContent`: it may rewrite a published canonical in place. */
    mayChangeLive?: boolean
    /**
     * The caller publishes this canonical later in the same transaction and lets that publish's
     * event tell the change (the CLI seed, with `liveBefore`): no in-place event of its own.
     */
    publishesNext?: boolean
    /**
     * A write that would store what is there already writes nothing and answers the row as it is
     * (same ETag): PATCH's, whose patch may change nothing (only `test` operations).
     */
    unchangedIsNoop?: boolean
  },
): Promise<DocumentRow> {
  const { teamId, userId } = input
  const { kind, canonicalId } = parseId(input.doc.id)
  if ((kind !== 'canonical' && kind !== 'draft') || !isValidCanonicalId(canonicalId)) throw invalidId()

  try {
    return await db.transaction(
      async (tx) => {
        // The team and the content type are read in this write transaction: a locale removed or
        // a collection moved by another process just before is what this write is checked
        // against and stored under (a read before it could store the old collection).
        const team = await getTeam(tx, teamId)
        if (!team) throw notFound('Team not found.')
        const type = await getContentType(tx, teamId, input.doc.contentType)
        if (!type) throw badRequest('unknown_content_type', `Unknown content type: ${echoList([String(input.doc.contentType)])}.`)
        const clean = stripStamp(input.doc)
        const body: Document = { ...clean, id: input.doc.id, contentType: type.name, fields: clean.fields ?? {}, locales: clean.locales ?? {} }
        const unknown = Object.keys(body.locales).filter((l) => !team.locales.includes(l))
        if (type.urls) {
          const problem = pageFieldProblem(body)
          if (problem) throw badRequest(problem.code, problem.message)
        }
        const canonical = await loadLive(tx, teamId, canonicalId)
        // Rewriting a published canonical changes the site at once, like a publish: it takes
        // `ChangeLiveContent` (spec.md asks it even of a restore into such a document's draft).
        if (kind === 'canonical' && canonical?.published && !input.mayChangeLive) {
          throw new AppError(403, 'forbidden', `Missing capability: ChangeLiveContent. The document is published; edit its draft ${JSON.stringify(draftId(canonicalId))} instead.`)
        }
        const current = await loadDoc(tx, teamId, input.doc.id)
        // A soft-deleted document does not exist for If-Match (`*` must not bring it back).
        if (!ifMatchHolds(input.ifMatch, current && !current.deletedAt ? current.changeVector : null)) throw ifMatchFailed()
        const before = kind === 'draft' ? (current && !current.deletedAt ? current : canonical) : canonical
        refuseUnknownLocales(unknown, body, before)
        refuseMisplacedFields(type, body, before)
        // Only a new or changed parent: a page stored in a cycle before this rule stays editable.
        const parentKept = before !== null && same(asDocument(before.body).fields?.parent, body.fields.parent)
        if (type.urls && !parentKept) await refuseParentCycle(tx, teamId, canonicalId, body.fields.parent)
        if (input.unchangedIsNoop && current && !current.deletedAt && same(stripStamp(current.body), body)) return current
        // A draft's dirty locales are those that differ from what is live. A published canonical
        // rewritten in place stays published, so it keeps carrying the stamp of its last publish
        // (spec.md: a published canonical carries the stamp; the write itself adds none, and the
        // body's own stamp fields were dropped above, so none can be forged).
        const live = canonical?.published ? canonical.body : null
        const stored = kind === 'draft'
          ? { ...body, __dirtyLocales: dirtyLocales(body, live && asDocument(live)) }
          : { ...body, ...(live ? stampOf(live) : {}) }
        const row = await saveDoc(tx, {
          teamId,
          id: input.doc.id,
          canonicalId,
          kind,
          collection: type.collection,
          body: stored,
          current,
          deletedAt: kind === 'canonical' ? null : undefined,
          // A canonical written over a soft-deleted one is a new document: not archived (the
          // deleted one may have been archived first), whatever the old row said.
          ...(kind === 'canonical' && current?.deletedAt ? { archived: false } : {}),
        })
        await appendActivity(tx, teamId, canonicalId, editEntries(before && asDocument(before.body), asDocument(body), userId))
        if (kind === 'canonical') {
          if (!input.publishesNext) await recordChangedInPlace(tx, { teamId, before: canonical, after: row, userId })
          await refreshDraftDirty(tx, teamId, canonicalId, row)
        }
        return row
      },
      { behavior: 'immediate' },
    )
  } catch (e) {
    if (e instanceof ConcurrencyError) throw conflict()
    throw e
  }
}

/**
 * A write may carry only the team's locales, except one removed from the team since: its
 * content is kept as the document holds it (docs/api/teams-and-settings.md#removing-a-locale), so a document written before
 * the removal stays editable in its other locales. Adding or changing such a locale is refused.
 */
function refuseUnknownLocales(unknown: string[], body: Document, before: DocumentRow | null) {
  const kept = before ? asDocument(before.body).locales : {}
  const refused = unknown.filter((l) => !Object.hasOwn(kept, l) || !same(kept[l], body.locales[l]))
  if (refused.length > 0) {
    throw badRequest('unknown_locale', `Unknown locale(s): ${echoList(refused)}. A locale removed from the team is kept as the document holds it; it cannot be added or changed.`)
  }
}

/**
 * A field the content type declares sits where its `localizable` flag says (contract.md
 * "Documents"): a localizable one in each locale's object, the others in `fields`. A title left
 * in `fields` would have no language, travel with every locale-selective restore and publish,
 * and a slug there gives the page no URL. Fields the type does not name are the document's own
 * and kept wherever they are; a field on the wrong side since its type changed is kept as the
 * document holds it (as a removed locale is), only adding or changing it is refused.
 */
function refuseMisplacedFields(type: ContentTypeRow, body: Document, before: DocumentRow | null) {
  const declared = new Map(((type.definition as { fields?: { name: string; localizable?: boolean }[] }).fields ?? []).map((f) => [f.name, f.localizable === true]))
  if (declared.size === 0) return
  const kept = before ? asDocument(before.body) : null
  const keptFields: Record<string, unknown> = kept?.fields ?? {}
  const misplaced: string[] = []
  for (const [name, value] of Object.entries(body.fields)) {
    if (declared.get(name) === true && !(Object.hasOwn(keptFields, name) && same(keptFields[name], value))) misplaced.push(`fields.${name}`)
  }
  for (const [locale, values] of Object.entries(body.locales)) {
    const was: Record<string, unknown> = kept?.locales?.[locale] ?? {}
    for (const [name, value] of Object.entries(values ?? {})) {
      if (declared.get(name) === false && !(Object.hasOwn(was, name) && same(was[name], value))) misplaced.push(`locales.${locale}.${name}`)
    }
  }
  if (misplaced.length > 0) {
    throw badRequest('misplaced_field', `Field(s) on the wrong side for content type ${type.name}: ${echoList(misplaced)}. A localizable field goes in each locale's object (locales.<code>.<name>), any other in \`fields\`.`)
  }
}

/** Ancestors walked looking for a cycle; deeper page trees are not refused, only not checked further. */
const MAX_PARENT_WALK = 256

/**
 * A page cannot be its own ancestor (contract.md "Documents": the path runs through the
 * ancestors via `fields.parent`): a cycle gives every page in it, and below it, no URL. The
 * chain is walked through the canonicals as they are now.
 */
async function refuseParentCycle(tx: Tx, teamId: string, canonicalId: string, parent: unknown) {
  const seen = new Set<string>()
  for (let id = parent; typeof id === 'string' && !isNoParent(id) && !seen.has(id) && seen.size < MAX_PARENT_WALK; ) {
    if (id === canonicalId) {
      throw badRequest('invalid_body', `\`fields.parent\` would make ${JSON.stringify(canonicalId.slice(0, 100))} its own ancestor (${parent === canonicalId ? 'its own parent' : 'through its parents'}): a page in a cycle has no URL.`)
    }
    seen.add(id)
    const row = await loadLive(tx, teamId, id)
    id = row ? (asDocument(row.body).fields?.parent ?? null) : null
  }
}

function editEntries(before: Document | null, after: Document, userId: string): ActivityEntry[] {
  const at = new Date().toISOString()
  const entries: ActivityEntry[] = changedLocales(before, after).map((locale) => ({ kind: 'EDIT', locale, userId, at }))
  if (fieldsChanged(before, after)) entries.push({ kind: 'EDIT', locale: null, userId, at })
  return entries
}

/**
 * Applies an RFC 6902 patch to a canonical or draft. Patching a draft that does not exist
 * yet creates it from the canonical, stamp removed. The result is validated and saved
 * through `writeDocument`, under the change vector read here.
 */
export async function patchDocument(db: Db, input: { teamId: string; userId: string; id: string | undefined; patch: unknown; ifMatch?: string; mayChangeLive?: boolean; maxBytes: number }) {
  const id = input.id
  if (!id) throw badRequest('missing_id', 'Query parameter `id` is required.')
  const ops = readPatch(input.patch)
  const { kind, canonicalId } = parseId(id)
  if (kind !== 'canonical' && kind !== 'draft') throw badRequest('invalid_id', 'Only a canonical or a draft can be patched.')
  if (!isValidCanonicalId(canonicalId)) throw invalidId()
  // Read, apply and write in one write transaction: between a read outside it and the write, a
  // writer in another process could land, and a draft created from the canonical has no change
  // vector to guard it (its PATCHes were lost updates across api processes).
  // Everything through `tx`: on SQLite `db` would land in this transaction too (db/transaction.ts),
  // on PostgreSQL it is the pool, outside it.
  return await db.transaction(async (tx) => {
    const current = await loadLive(tx, input.teamId, id)
    const base = current ?? (kind === 'draft' ? await loadLive(tx, input.teamId, canonicalId) : null)
    if (!base) throw notFound('Document not found.')
    // The caller's If-Match is checked against what the patch applies to.
    if (!ifMatchHolds(input.ifMatch, current?.changeVector ?? null)) throw ifMatchFailed()
    const doc = stripStamp(structuredClone(base.body))
    const result = applyPatch(doc, ops, input.maxBytes)
    const next = { ...result, id }
    if (!Value.Check(DocumentInput, next)) throw badRequest('invalid_document', 'The patched document is not a valid document.')
    // A patch that changes nothing (only `test` operations, a value replaced by itself) writes
    // nothing: the ETag a client holds stays good.
    return await writeDocument(tx, {
      teamId: input.teamId, userId: input.userId, doc: next, ifMatch: current?.changeVector ?? undefined, mayChangeLive: input.mayChangeLive, unchangedIsNoop: true,
    })
  }, { behavior: 'immediate' })
}
