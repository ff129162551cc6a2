/**
 * The document store: load and save documents under optimistic concurrency (change vectors),
 * and read and write revisions. Every function takes a connection so callers compose them
 * inside one `db.transaction(...)`.
 */
import { and, desc, eq, sql, count } from 'drizzle-orm'
import type { Conn } from './client'
import { documents, meta, revisions, type DocumentRow, type RevisionRow } from './schema'

export type DocKind = DocumentRow['kind']

/** Raised when the change vector a writer expected is not the stored one. Nothing was written. */
export class ConcurrencyError extends Error {
  constructor(readonly id: string) {
    super(`Document ${id} was changed by someone else`)
  }
}

/** The collection given to activity documents: present in the keyspace, but not content. */
export const ACTIVITY_COLLECTION = '@activity'

/**
 * A fresh change vector `A:<etag>-<node>`: the etag is a database-wide counter bumped inside
 * the caller's transaction, the node id is fixed per database file.
 */
export function nextChangeVector(conn: Conn): string {
  const row = conn
    .insert(meta)
    .values({ key: 'etag', value: '1' })
    .onConflictDoUpdate({ target: meta.key, set: { value: sql`CAST(${meta.value} AS INTEGER) + 1` } })
    .returning({ value: meta.value })
    .get()
  return `A:${row.value}-${nodeId(conn)}`
}

function nodeId(conn: Conn): string {
  const existing = conn.select({ value: meta.value }).from(meta).where(eq(meta.key, 'node')).get()
  if (existing) return existing.value
  const id = crypto.randomUUID().replaceAll('-', '').slice(0, 22)
  conn.insert(meta).values({ key: 'node', value: id }).onConflictDoNothing().run()
  return conn.select({ value: meta.value }).from(meta).where(eq(meta.key, 'node')).get()!.value
}

/** Well-formed change vectors, the only thing a version reference may decode to. */
export const CHANGE_VECTOR = /^A:\d{1,18}-[A-Za-z0-9]{1,64}$/

/** Loads a document row, soft-deleted or not; `null` when absent. */
export function loadDoc(conn: Conn, teamId: string, id: string): DocumentRow | null {
  return (
    conn
      .select()
      .from(documents)
      .where(and(eq(documents.teamId, teamId), eq(documents.id, id)))
      .get() ?? null
  )
}

export interface SaveDoc {
  teamId: string
  id: string
  canonicalId: string
  kind: DocKind
  collection: string
  body: Record<string, unknown>
  /** `undefined`: no check; `null`: the document must not exist; a string: must match. */
  expect?: string | null
  published?: boolean
  archived?: boolean
  deletedAt?: string | null
}

/**
 * Writes a document if the stored change vector is the one the caller read. Returns the row
 * as written. Throws `ConcurrencyError` (and writes nothing) on a mismatch.
 */
export function saveDoc(conn: Conn, input: SaveDoc): DocumentRow {
  const current = loadDoc(conn, input.teamId, input.id)
  if (input.expect !== undefined && (current?.changeVector ?? null) !== input.expect) {
    throw new ConcurrencyError(input.id)
  }
  const changeVector = nextChangeVector(conn)
  const row: DocumentRow = {
    teamId: input.teamId,
    id: input.id,
    canonicalId: input.canonicalId,
    kind: input.kind,
    collection: input.collection,
    body: input.body,
    changeVector,
    published: input.published ?? current?.published ?? false,
    archived: input.archived ?? current?.archived ?? false,
    deletedAt: input.deletedAt === undefined ? (current?.deletedAt ?? null) : input.deletedAt,
    updatedAt: new Date().toISOString(),
  }
  conn
    .insert(documents)
    .values(row)
    .onConflictDoUpdate({ target: [documents.teamId, documents.id], set: { ...row } })
    .run()
  return row
}

/** Deletes a document row outright (used for siblings: discard draft, consumed schedule). */
export function deleteDoc(conn: Conn, teamId: string, id: string, expect?: string): boolean {
  const current = loadDoc(conn, teamId, id)
  if (!current) return false
  if (expect !== undefined && current.changeVector !== expect) throw new ConcurrencyError(id)
  conn.delete(documents).where(and(eq(documents.teamId, teamId), eq(documents.id, id))).run()
  return true
}

/** Records a revision of `documentId` holding `body` exactly as saved under `changeVector`. */
export function putRevision(
  conn: Conn,
  input: { teamId: string; documentId: string; changeVector: string; body: Record<string, unknown>; stamped: boolean },
): RevisionRow {
  return conn
    .insert(revisions)
    .values({ ...input, createdAt: new Date().toISOString() })
    .returning()
    .get()
}

/** Raw revisions of a document, newest first, from raw offset `start`. */
export function listRevisions(conn: Conn, teamId: string, documentId: string, start: number, limit: number): RevisionRow[] {
  return conn
    .select()
    .from(revisions)
    .where(and(eq(revisions.teamId, teamId), eq(revisions.documentId, documentId)))
    .orderBy(desc(revisions.seq))
    .limit(limit)
    .offset(start)
    .all()
}

export function countRevisions(conn: Conn, teamId: string, documentId: string): number {
  return conn
    .select({ n: count() })
    .from(revisions)
    .where(and(eq(revisions.teamId, teamId), eq(revisions.documentId, documentId)))
    .get()!.n
}

/** The revision stored under a change vector, whatever document it belongs to. */
export function revisionByChangeVector(conn: Conn, teamId: string, changeVector: string): RevisionRow | null {
  return (
    conn
      .select()
      .from(revisions)
      .where(and(eq(revisions.teamId, teamId), eq(revisions.changeVector, changeVector)))
      .get() ?? null
  )
}
