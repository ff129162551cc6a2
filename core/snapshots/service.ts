/**
 * Snapshots (contract.md: `POST/PATCH /content/snapshots`, `POST /content/snapshots/revoke`):
 * a frozen copy of the draft (or of the canonical when there is no draft) under
 * `<document_id>/snapshot/<token>`. The body lives in `documents` (kind `snapshot`), the
 * record (name, expiry, revocation) in `snapshots`. Restoring one is `api/restore`.
 */
import type { Conn, Db } from '../../db/client'
import type { DocumentRow } from '../../db/schema'
import { getSnapshot, insertSnapshot, snapshotsOf, updateSnapshot, type SnapshotRow } from '../../db/queries/snapshots'
import { loadDoc, saveDoc } from '../../db/store'
import { stripStamp } from '../documents/document'
import { draftId, isStorableId, isValidCanonicalId, parseId } from '../documents/ids'
import { loadLive } from '../content/service'
import { getVersionBody } from '../versions/service'
import { badRequest, notFound } from '../errors'
import { parseTimestamp, timestampProblem } from '../timestamps'

export type { SnapshotRow }
export type SnapshotStatus = 'active' | 'expired' | 'revoked'
export const MAX_NAME_LENGTH = 200

export interface SnapshotRecord {
  id: string
  documentId: string
  name: string | null
  status: SnapshotStatus
  createdAt: string
  createdBy: string
  expiresAt: string | null
}

/** Revoked wins over expired: a revocation is a decision, an expiry only a date. */
export function snapshotStatus(row: Pick<SnapshotRow, 'revokedAt' | 'expiresAt'>, now: Date): SnapshotStatus {
  if (row.revokedAt) return 'revoked'
  if (row.expiresAt && Date.parse(row.expiresAt) <= now.getTime()) return 'expired'
  return 'active'
}

export function toRecord(row: SnapshotRow, now: Date): SnapshotRecord {
  const { id, documentId, name, createdAt, createdBy, expiresAt } = row
  return { id, documentId, name, status: snapshotStatus(row, now), createdAt, createdBy, expiresAt }
}

/** 16 random bytes as base64url: 22 unguessable characters. */
const newToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url')

function readName(name: unknown): string | null {
  if (name === undefined || name === null) return null
  if (typeof name !== 'string' || name.length > MAX_NAME_LENGTH) {
    throw badRequest('invalid_name', `\`name\` must be a string of at most ${MAX_NAME_LENGTH} characters.`)
  }
  // SQLite stores UTF-8: a lone surrogate would be read back as U+FFFD, not what was answered.
  // Control characters (NUL, line breaks) have no place in a one-line label.
  if (!name.isWellFormed() || /[\u0000-\u001f\u007f]/.test(name)) {
    throw badRequest('invalid_name', '`name` must be one line of well-formed text (no control characters or lone surrogates).')
  }
  return name
}

function readExpiry(expiresAt: unknown, now: Date): string | null {
  if (expiresAt === undefined || expiresAt === null) return null
  const at = parseTimestamp(expiresAt)
  if (at === null) throw badRequest('bad_expiry', timestampProblem('expiresAt'))
  if (at <= now.getTime()) throw badRequest('bad_expiry', '`expiresAt` must lie in the future.')
  return new Date(at).toISOString()
}

export interface CreateSnapshot {
  teamId: string
  userId: string
  documentId?: string
  /** A Published Version of `documentId` (a version row's reference): snapshot it instead of the draft. */
  version?: string
  name?: unknown
  expiresAt?: unknown
  now?: Date
}

/**
 * Copies the draft (or the canonical), or the Published Version `input.version` names (the
 * History drawer's "Share" on a version row), stamp removed, into a new active snapshot.
 */
export async function createSnapshot(db: Db, input: CreateSnapshot): Promise<SnapshotRecord> {
  const now = input.now ?? new Date()
  const { teamId, documentId } = input
  if (!documentId) throw badRequest('missing_id', '`documentId` is required.')
  if (parseId(documentId).kind !== 'canonical') throw badRequest('sibling_id', '`documentId` names a sibling; pass the canonical id.')
  if (!isValidCanonicalId(documentId)) throw badRequest('invalid_id', '`documentId` is not a valid canonical id.')
  const name = readName(input.name)
  const expiresAt = readExpiry(input.expiresAt, now)
  // A version reference is checked as the version body endpoint checks it: one 404 for any
  // reference not of this document. A Published Version never changes: read before the write.
  const version = input.version === undefined ? undefined : (await getVersionBody(db, teamId, documentId, input.version) as Record<string, unknown>)
  return await db.transaction(
    async (tx) => {
      const source = await loadLive(tx, teamId, draftId(documentId)) ?? await loadLive(tx, teamId, documentId)
      if (!source || (source.kind !== 'draft' && source.kind !== 'canonical')) throw notFound('Document not found.')
      const id = `${documentId}/snapshot/${newToken()}`
      const from = version ?? source.body
      const body = { ...stripStamp(from), id }
      await saveDoc(tx, { teamId, id, canonicalId: documentId, kind: 'snapshot', collection: source.collection, body, expect: null })
      const row: SnapshotRow = { teamId, id, documentId, name, createdBy: input.userId, createdAt: now.toISOString(), expiresAt, revokedAt: null }
      await insertSnapshot(tx, row)
      return toRecord(row, now)
    },
    { behavior: 'immediate' },
  )
}

/** The snapshot record and its body, or null when either is missing (or `id` cannot be stored as given). */
export async function loadSnapshot(conn: Conn, teamId: string, id: string): Promise<{ row: SnapshotRow; body: DocumentRow } | null> {
  if (!isStorableId(id)) return null
  const row = await getSnapshot(conn, teamId, id)
  const body = row ? await loadDoc(conn, teamId, id) : null
  return row && body ? { row, body } : null
}

async function requireSnapshot(conn: Conn, teamId: string, id: string | undefined): Promise<SnapshotRow> {
  if (!id) throw badRequest('missing_id', 'The snapshot `id` is required.')
  if (parseId(id).kind !== 'snapshot' || !isStorableId(id)) throw badRequest('invalid_id', 'The id is not a snapshot id `<document_id>/snapshot/<token>`.')
  const found = await loadSnapshot(conn, teamId, id)
  if (!found) throw notFound('Snapshot not found.')
  return found.row
}

/** Renames a snapshot, whatever its status (a name is only a label). */
export async function renameSnapshot(db: Db, input: { teamId: string; id: string | undefined; name: unknown; now?: Date }): Promise<SnapshotRecord> {
  const name = readName(input.name) // the body first, like the schema's own checks
  // Read and written in one write transaction, so the answer is the record as stored (a revoke
  // by another process in between is in it), as in revokeSnapshot.
  return await db.transaction(async (tx) => {
    const row = await requireSnapshot(tx, input.teamId, input.id)
    await updateSnapshot(tx, row, { name })
    return toRecord({ ...row, name }, input.now ?? new Date())
  }, { behavior: 'immediate' })
}

/** Revokes a snapshot; revoking a revoked one changes nothing and answers the same record. */
export async function revokeSnapshot(db: Db, input: { teamId: string; id: string | undefined; now?: Date }): Promise<SnapshotRecord> {
  const now = input.now ?? new Date()
  return await db.transaction(async (tx) => {
    const row = await requireSnapshot(tx, input.teamId, input.id)
    if (row.revokedAt) return toRecord(row, now)
    const revokedAt = now.toISOString()
    await updateSnapshot(tx, row, { revokedAt })
    return toRecord({ ...row, revokedAt }, now)
  }, { behavior: 'immediate' })
}

/** Active snapshots of a document, newest first (for History). */
export async function activeSnapshots(conn: Conn, teamId: string, documentId: string, now: Date): Promise<SnapshotRow[]> {
  return (await snapshotsOf(conn, teamId, documentId)).filter((row) => snapshotStatus(row, now) === 'active')
}

/** A snapshot as the document's full list shows it: its record, its languages and when it was revoked. */
export interface ListedSnapshot extends SnapshotRecord {
  locales: string[]
  revokedAt: string | null
}

/**
 * Every snapshot of a document, active or not, newest first: what History leaves out (it lists
 * active ones only) so that an app can still show a revoked or expired one for what it is.
 * The document must exist (a canonical or a draft), as for History.
 */
export async function listSnapshots(db: Db, teamId: string, documentId: string | undefined, now = new Date()): Promise<{ documentId: string; snapshots: ListedSnapshot[] }> {
  if (!documentId) throw badRequest('missing_id', 'Query parameter `documentId` is required.')
  if (parseId(documentId).kind !== 'canonical') throw badRequest('sibling_id', '`documentId` names a sibling; pass the canonical id.')
  if (!isValidCanonicalId(documentId)) throw badRequest('invalid_id', '`documentId` is not a valid canonical id.')
  if (!await loadLive(db, teamId, documentId) && !await loadLive(db, teamId, draftId(documentId))) throw notFound('Document not found.')
  const rows = await snapshotsOf(db, teamId, documentId)
  return {
    documentId,
    snapshots: await Promise.all(rows.map(async (row) => {
      const body = (await loadDoc(db, teamId, row.id))?.body as { locales?: Record<string, unknown> } | undefined
      return { ...toRecord(row, now), locales: Object.keys(body?.locales ?? {}), revokedAt: row.revokedAt }
    })),
  }
}
