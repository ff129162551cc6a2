/**
 * The document store: load and save documents under optimistic concurrency (change vectors),
 * and read and write revisions. Every function takes a connection so callers compose them
 * inside one `db.transaction(...)`.
 */
import type { Database } from 'bun:sqlite'
import { useClient, type SqliteConn as Conn } from './client'
import { byDialect } from './dialect'
import * as pg from './pg/store'
import { decodeStored, encodeDelta, encodeFull, keyframeOf, type StoredBody } from './revision-body'
import type { DocumentRow, RevisionRow } from './schema'
import { countRevisionsNow } from './revisions'

export * from './revisions'
export { ACTIVITY_COLLECTION, CHANGE_VECTOR, ConcurrencyError, summaryOf } from './store-common'
import { ConcurrencyError, summaryOf } from './store-common'

export type DocKind = DocumentRow['kind']

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
function nextChangeVectorNow(conn: Conn): string {
  const client = raw(conn)
  const row = client
    .query<{ value: string }, []>(
      "INSERT INTO meta (key, value) VALUES ('etag', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING value",
    )
    .get()!
  return `A:${row.value}-${nodeId(client)}`
}

/** `nextChangeVectorNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function nextChangeVectorOnSqlite(conn: Conn): Promise<string> {
  return await useClient(conn, () => nextChangeVectorNow(conn))
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
function loadDocNow(conn: Conn, teamId: string, id: string): DocumentRow | null {
  if (!storable(id)) return null
  const r = raw(conn).query<DocRecord, [string, string]>('SELECT * FROM documents WHERE team_id = ? AND id = ?').get(teamId, id)
  return r ? toDocRow(r) : null
}

/** `loadDocNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function loadDocOnSqlite(conn: Conn, teamId: string, id: string): Promise<DocumentRow | null> {
  return await useClient(conn, () => loadDocNow(conn, teamId, id))
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
function saveDocNow(conn: Conn, input: SaveDoc): DocumentRow {
  if (!storable(input.id) || !storable(input.canonicalId)) throw new Error('A document id with a lone surrogate cannot be stored')
  const current = input.current !== undefined ? input.current : loadDocNow(conn, input.teamId, input.id)
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
    changeVector: nextChangeVectorNow(conn),
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

/** `saveDocNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function saveDocOnSqlite(conn: Conn, input: SaveDoc): Promise<DocumentRow> {
  return await useClient(conn, () => saveDocNow(conn, input))
}

/** Deletes a document row outright (used for siblings: discard draft, consumed schedule). */
function deleteDocNow(conn: Conn, teamId: string, id: string, expect?: string): boolean {
  const current = loadDocNow(conn, teamId, id)
  if (!current) return false
  if (expect !== undefined && current.changeVector !== expect) throw new ConcurrencyError(id)
  raw(conn).query('DELETE FROM documents WHERE team_id = ? AND id = ?').run(teamId, id)
  return true
}

/** `deleteDocNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function deleteDocOnSqlite(conn: Conn, teamId: string, id: string, expect?: string): Promise<boolean> {
  return await useClient(conn, () => deleteDocNow(conn, teamId, id, expect))
}

/**
 * Records a revision of `documentId` holding `body` exactly as saved under `changeVector`. The
 * body is stored compressed (db/revision-body.ts): a keyframe every KEYFRAME_EVERY ordinals, and
 * in between a delta against the keyframe, whose text is read here (one index seek).
 */
function putRevisionNow(
  conn: Conn,
  input: { teamId: string; documentId: string; changeVector: string; body: Record<string, unknown>; stamped: boolean },
): RevisionRow {
  const client = raw(conn)
  const createdAt = new Date().toISOString()
  const ordinal = countRevisionsNow(conn, input.teamId, input.documentId) + 1
  const text = JSON.stringify(input.body)
  const body = encodeRevision(client, input.teamId, input.documentId, ordinal, text)
  const { seq } = client
    .query<{ seq: number }, [string, string, number, string, Uint8Array, string | null, number, string]>(
      `INSERT INTO revisions (team_id, document_id, ordinal, change_vector, body, summary, stamped, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    )
    .get(input.teamId, input.documentId, ordinal, input.changeVector, body, input.stamped ? summaryOf(input.body) : null, input.stamped ? 1 : 0, createdAt)!
  if (input.stamped) noteLocales(conn, input.teamId, input.documentId, ordinal, createdAt, input.body)
  return { seq, ordinal, ...input, createdAt }
}

/** `putRevisionNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function putRevisionOnSqlite(
  conn: Conn,
  input: { teamId: string; documentId: string; changeVector: string; body: Record<string, unknown>; stamped: boolean },
): Promise<RevisionRow> {
  return await useClient(conn, () => putRevisionNow(conn, input))
}

/**
 * The stored form of revision `ordinal`'s text: a keyframe, or a delta against its keyframe
 * (whatever form that row is in yet). Used by `putRevision` and by the background conversion
 * of rows written as plain text (dispatcher/compress-revisions.ts).
 */
export function encodeRevision(client: Database, teamId: string, documentId: string, ordinal: number, text: string): Uint8Array {
  const keyframe = keyframeOf(ordinal)
  if (keyframe === ordinal) return encodeFull(text)
  const base = client
    .query<{ seq: number; body: StoredBody }, [string, string, number]>('SELECT seq, body FROM revisions WHERE team_id = ? AND document_id = ? AND ordinal = ?')
    .get(teamId, documentId, keyframe)
  return base ? encodeDelta(text, base.seq, decodeStored(client, base.body)) : encodeFull(text)
}

/**
 * Keeps `revision_locales` (db/schema.ts) up to date for a new Published Version: each of its
 * locales was last published at this ordinal, and at this time or later. `max()` keeps the
 * latest time even if a clock stepped back, as a scan of every version's `created_at` would.
 */
function noteLocales(conn: Conn, teamId: string, documentId: string, ordinal: number, createdAt: string, body: Record<string, unknown>) {
  const locales = body.locales
  if (!locales || typeof locales !== 'object') return
  const upsert = raw(conn).query(
    `INSERT INTO revision_locales (team_id, document_id, locale, last_ordinal, last_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (team_id, document_id, locale) DO UPDATE SET last_ordinal = max(last_ordinal, excluded.last_ordinal), last_at = max(last_at, excluded.last_at)`,
  )
  for (const locale of Object.keys(locales)) upsert.run(teamId, documentId, locale, ordinal, createdAt)
}

export const nextChangeVector = byDialect(nextChangeVectorOnSqlite, pg.nextChangeVector)
export const loadDoc = byDialect(loadDocOnSqlite, pg.loadDoc)
export const saveDoc = byDialect(saveDocOnSqlite, pg.saveDoc)
export const deleteDoc = byDialect(deleteDocOnSqlite, pg.deleteDoc)
export const putRevision = byDialect(putRevisionOnSqlite, pg.putRevision)
