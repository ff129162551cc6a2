/**
 * The document store: load and save documents under optimistic concurrency (change vectors),
 * and read and write revisions. Every function takes a connection so callers compose them
 * inside one `db.transaction(...)`.
 */
import type { Database } from 'bun:sqlite'
import { and, eq } from 'drizzle-orm'
import type { Conn } from './client'
import { revisions, type DocumentRow, type RevisionRow } from './schema'

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
 * The hot paths below use bun:sqlite's `query()` (compiled once per connection and cached)
 * instead of drizzle's builder, which compiles a fresh statement on every call: publish went
 * from ~1 ms to a fraction of that. The database and its transactions carry the connection
 * they run on as `$client` (db/client.ts).
 */
export function raw(conn: Conn): Database {
  return conn.$client
}

const nodeIds = new WeakMap<Database, string>()

/**
 * A fresh change vector `A:<etag>-<node>`: the etag is a database-wide counter bumped inside
 * the caller's transaction, the node id is fixed per database file.
 */
export function nextChangeVector(conn: Conn): string {
  const client = raw(conn)
  const row = client
    .query<{ value: string }, []>(
      "INSERT INTO meta (key, value) VALUES ('etag', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING value",
    )
    .get()!
  return `A:${row.value}-${nodeId(client)}`
}

function nodeId(client: Database): string {
  let id = nodeIds.get(client)
  if (!id) {
    client.query("INSERT INTO meta (key, value) VALUES ('node', ?) ON CONFLICT(key) DO NOTHING").run(crypto.randomUUID().replaceAll('-', '').slice(0, 22))
    id = client.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'node'").get()!.value
    nodeIds.set(client, id)
  }
  return id
}

/** Well-formed change vectors, the only thing a version reference may decode to. */
export const CHANGE_VECTOR = /^A:\d{1,18}-[A-Za-z0-9]{1,64}$/

interface DocRecord {
  team_id: string; id: string; canonical_id: string; kind: DocKind; collection: string; body: string
  change_vector: string; published: number; archived: number; deleted_at: string | null; updated_at: string
}

const toDocRow = (r: DocRecord): DocumentRow => ({
  teamId: r.team_id, id: r.id, canonicalId: r.canonical_id, kind: r.kind, collection: r.collection,
  body: JSON.parse(r.body), changeVector: r.change_vector, published: r.published === 1,
  archived: r.archived === 1, deletedAt: r.deleted_at, updatedAt: r.updated_at,
})

/**
 * SQLite keeps text as UTF-8, which cannot encode a lone UTF-16 surrogate: `a\ud800` and
 * `a\udfff` would both become `a\ufffd`, so one id would reach another's document. The api
 * refuses such ids (core/documents/ids.ts); the store refuses them too, for every other caller.
 */
const storable = (id: string) => id.isWellFormed()

/** Loads a document row, soft-deleted or not; `null` when absent (or when `id` cannot be stored). */
export function loadDoc(conn: Conn, teamId: string, id: string): DocumentRow | null {
  if (!storable(id)) return null
  const r = raw(conn).query<DocRecord, [string, string]>('SELECT * FROM documents WHERE team_id = ? AND id = ?').get(teamId, id)
  return r ? toDocRow(r) : null
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
  /** The row as the caller already loaded it in this transaction, to save a second read. */
  current?: DocumentRow | null
}

/**
 * `canonical_id` and `kind` follow from the id and never change, so an update leaves them (and
 * their index) alone: fewer pages to write per commit.
 *
 * Writes a document if the stored change vector is the one the caller read. Returns the row
 * as written. Throws `ConcurrencyError` (and writes nothing) on a mismatch.
 */
export function saveDoc(conn: Conn, input: SaveDoc): DocumentRow {
  if (!storable(input.id) || !storable(input.canonicalId)) throw new Error('A document id with a lone surrogate cannot be stored')
  const current = input.current !== undefined ? input.current : loadDoc(conn, input.teamId, input.id)
  if (input.expect !== undefined && (current?.changeVector ?? null) !== input.expect) {
    throw new ConcurrencyError(input.id)
  }
  const row: DocumentRow = {
    teamId: input.teamId,
    id: input.id,
    canonicalId: input.canonicalId,
    kind: input.kind,
    collection: input.collection,
    body: input.body,
    changeVector: nextChangeVector(conn),
    published: input.published ?? current?.published ?? false,
    archived: input.archived ?? current?.archived ?? false,
    deletedAt: input.deletedAt === undefined ? (current?.deletedAt ?? null) : input.deletedAt,
    updatedAt: new Date().toISOString(),
  }
  raw(conn)
    .query(
      `INSERT INTO documents (team_id, id, canonical_id, kind, collection, body, change_vector, published, archived, deleted_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, id) DO UPDATE SET collection = excluded.collection, body = excluded.body, change_vector = excluded.change_vector,
         published = excluded.published, archived = excluded.archived, deleted_at = excluded.deleted_at,
         updated_at = excluded.updated_at`,
    )
    .run(row.teamId, row.id, row.canonicalId, row.kind, row.collection, JSON.stringify(row.body), row.changeVector,
      row.published ? 1 : 0, row.archived ? 1 : 0, row.deletedAt, row.updatedAt)
  return row
}

/** Deletes a document row outright (used for siblings: discard draft, consumed schedule). */
export function deleteDoc(conn: Conn, teamId: string, id: string, expect?: string): boolean {
  const current = loadDoc(conn, teamId, id)
  if (!current) return false
  if (expect !== undefined && current.changeVector !== expect) throw new ConcurrencyError(id)
  raw(conn).query('DELETE FROM documents WHERE team_id = ? AND id = ?').run(teamId, id)
  return true
}

/** Records a revision of `documentId` holding `body` exactly as saved under `changeVector`. */
export function putRevision(
  conn: Conn,
  input: { teamId: string; documentId: string; changeVector: string; body: Record<string, unknown>; stamped: boolean },
): RevisionRow {
  const createdAt = new Date().toISOString()
  const { seq, ordinal } = raw(conn)
    .query<{ seq: number; ordinal: number }, [string, string, string, string, number, string]>(
      `INSERT INTO revisions (team_id, document_id, ordinal, change_vector, body, stamped, created_at)
       VALUES (?1, ?2, (SELECT coalesce(max(ordinal), 0) + 1 FROM revisions WHERE team_id = ?1 AND document_id = ?2), ?3, ?4, ?5, ?6)
       RETURNING seq, ordinal`,
    )
    .get(input.teamId, input.documentId, input.changeVector, JSON.stringify(input.body), input.stamped ? 1 : 0, createdAt)!
  return { seq, ordinal, ...input, createdAt }
}

interface RevisionRecord {
  seq: number; ordinal: number; team_id: string; document_id: string; change_vector: string; body: string; stamped: number; created_at: string
}

const toRevisionRow = (r: RevisionRecord): RevisionRow => ({
  seq: r.seq, ordinal: r.ordinal, teamId: r.team_id, documentId: r.document_id, changeVector: r.change_vector,
  body: JSON.parse(r.body), stamped: r.stamped === 1, createdAt: r.created_at,
})

/** Raw revisions of a document, newest first: `limit` of them from raw offset `start`. */
export function listRevisions(conn: Conn, teamId: string, documentId: string, start: number, limit: number): RevisionRow[] {
  const ordinal = countRevisions(conn, teamId, documentId) - start
  return ordinal > 0 ? revisionsFrom(conn, teamId, documentId, ordinal, limit) : []
}

/** Up to `limit` revisions of a document with `ordinal <= fromOrdinal`, newest first. */
export function revisionsFrom(conn: Conn, teamId: string, documentId: string, fromOrdinal: number, limit: number): RevisionRow[] {
  return raw(conn)
    .query<RevisionRecord, [string, string, number, number]>(
      'SELECT * FROM revisions WHERE team_id = ? AND document_id = ? AND ordinal <= ? ORDER BY ordinal DESC LIMIT ?',
    )
    .all(teamId, documentId, fromOrdinal, limit)
    .map(toRevisionRow)
}

/** How many revisions a document has: its highest ordinal, one index seek. */
export function countRevisions(conn: Conn, teamId: string, documentId: string): number {
  return raw(conn)
    .query<{ n: number | null }, [string, string]>('SELECT max(ordinal) AS n FROM revisions WHERE team_id = ? AND document_id = ?')
    .get(teamId, documentId)!.n ?? 0
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
