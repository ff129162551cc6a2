/**
 * Published Versions (spec.md "GET /content/versions" and "GET /content/version").
 */
import type { Db } from '../../db/client'
import { CHANGE_VECTOR, countRevisions, revisionByChangeVector, revisionEntriesFrom, type RevisionEntry } from '../../db/store'
import { parseId } from '../documents/ids'
import { loadLive } from '../content/service'
import { ACTIVITY_COLLECTION } from '../../db/store'
import { badRequest, notFound } from '../errors'
import { pageSizeParam } from '../query'
import type { Document } from '../documents/model'

export const DEFAULT_PAGE_SIZE = 25
export const MAX_PAGE_SIZE = 100

export interface VersionRow {
  version: string
  publishedAt: string
  publishedBy: string
  locales: string[]
  status: 'published'
}

/** The opaque version reference: base64url of the revision's change vector. */
export const encodeVersionRef = (changeVector: string) => Buffer.from(changeVector, 'utf8').toString('base64url')

/** The change vector a reference names, or `null` when the reference is not well formed. */
export function decodeVersionRef(ref: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(ref)) return null
  const cv = Buffer.from(ref, 'base64url').toString('utf8')
  return CHANGE_VECTOR.test(cv) && encodeVersionRef(cv) === ref ? cv : null
}

/**
 * Checks that `id` names a live canonical in a content collection, with the spec's error
 * codes in the spec's order: missing, sibling, unknown or soft-deleted, not content.
 */
export async function requireCanonical(db: Db, teamId: string, id: string | undefined) {
  if (!id) throw badRequest('missing_id', 'Query parameter `id` is required.')
  const kind = parseId(id).kind
  if (kind === 'draft' || kind === 'scheduled' || kind === 'snapshot') {
    throw badRequest('sibling_id', 'The id names a draft, scheduled or snapshot sibling; pass the canonical id.')
  }
  const row = await loadLive(db, teamId, id)
  if (!row) throw notFound('Document not found.')
  if (row.collection === ACTIVITY_COLLECTION || row.kind !== 'canonical') {
    throw badRequest('not_content', 'The id is not a document of a content collection.')
  }
  return row
}

/** The version row of a stamped revision (its fields are read from `summary` when stored: db/store.ts). */
export function toVersionRow(rev: RevisionEntry): VersionRow {
  return {
    version: encodeVersionRef(rev.changeVector),
    publishedAt: rev.publishedAt as string,
    publishedBy: rev.publishedBy as string,
    locales: rev.locales,
    status: 'published',
  }
}

const DIGITS = /^[0-9]+$/

/** Parses `start` and `pageSize` as the spec fixes them: integers, `start >= 0`, page size capped. */
export function parsePaging(start: string | undefined, pageSize: string | undefined) {
  // Decimal digits only: `Number` would also read `0x1`, `1e1`, `+1` and ` 1`. Any run of digits is
  // a whole number, however long: one past every revision (beyond 2^53 too) is an empty page.
  const s = start === undefined || start === '' ? 0 : DIGITS.test(start) ? Math.min(Number(start), Number.MAX_SAFE_INTEGER) : NaN
  if (!(s >= 0)) throw badRequest('bad_paging', '`start` must be a non-negative integer.')
  return { start: s, pageSize: pageSizeParam(pageSize, { name: 'pageSize', fallback: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE, code: 'bad_paging' }) }
}

/**
 * One page of Published Versions, newest first. Raw revisions are read from `start` until
 * `pageSize` stamped ones are found or the revisions run out; `nextStart` is the raw offset
 * consumed, so unstamped revisions skipped on the way are never read again, and `hasMore`
 * says whether any revision lies beyond it.
 */
export async function listVersions(db: Db, teamId: string, id: string, start: number, pageSize: number) {
  const rows: VersionRow[] = []
  let offset = start
  const top = await countRevisions(db, teamId, id) - start
  let chunk = top > 0 ? await revisionEntriesFrom(db, teamId, id, top, pageSize) : []
  let last: number | null = null
  while (chunk.length > 0) {
    for (const rev of chunk) {
      if (rows.length === pageSize) break
      offset++
      last = rev.ordinal
      if (rev.stamped) rows.push(toVersionRow(rev))
    }
    if (rows.length === pageSize || last === null) break
    chunk = await revisionEntriesFrom(db, teamId, id, last - 1, pageSize - rows.length)
  }
  // Ordinals are dense from 1: anything below the last one read lies beyond this page.
  const hasMore = last !== null && last > 1
  return { rows, hasMore, nextStart: offset }
}

/**
 * The body of one Published Version, shaped as a live document. Every refusal after the
 * reference parses is the same 404, so a reference cannot probe other documents.
 */
export async function getVersionBody(db: Db, teamId: string, id: string, ref: string | undefined) {
  if (!ref) throw badRequest('bad_reference', 'Query parameter `version` is required.')
  const cv = decodeVersionRef(ref)
  if (!cv) throw badRequest('bad_reference', 'The version reference is not well formed; pass it back verbatim.')
  const rev = await revisionByChangeVector(db, teamId, cv)
  if (!rev || rev.documentId !== id || !rev.stamped) throw notFound('No such version of this document.')
  const { '@metadata': _m, Id: _i, ...body } = rev.body
  // A stamped revision is a whole published canonical (spec.md "Version body").
  return { ...body, id } as Document
}
