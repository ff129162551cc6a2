/**
 * Documents on PostgreSQL (the twins of db/store.ts `loadDoc`, `saveDoc`, `deleteDoc`): the same
 * rows, the same optimistic concurrency, async, on a Bun.sql client (the pool, or the client of
 * the caller's transaction).
 */
import type { SQL } from 'bun'
import { ConcurrencyError } from '../../store-common'
import type { SaveDoc } from '../../store'
import type { DocumentRow } from '../../schema'
import { nextChangeVector } from './change-vector'

/**
 * An id PostgreSQL stores as given. As on SQLite, a lone UTF-16 surrogate cannot be encoded
 * (UTF-8), so two ids would reach one row; and PostgreSQL text cannot hold a NUL character at all.
 */
const storable = (id: string) => id.isWellFormed() && !id.includes('\0')

/** The columns as db/store.ts reads them; the body as its JSON text, parsed here as on SQLite. */
const COLUMNS = `team_id, id, canonical_id, kind, collection, body::text AS body, change_vector, published, archived, deleted_at, updated_at`

interface DocRecord {
  team_id: string; id: string; canonical_id: string; kind: DocumentRow['kind']; collection: string; body: string
  change_vector: string; published: boolean; archived: boolean; deleted_at: string | null; updated_at: string
}

const toDocRow = (r: DocRecord): DocumentRow => ({
  teamId: r.team_id, id: r.id, canonicalId: r.canonical_id, kind: r.kind, collection: r.collection,
  body: JSON.parse(r.body), changeVector: r.change_vector, published: r.published,
  archived: r.archived, deletedAt: r.deleted_at, updatedAt: r.updated_at,
})

/** Loads a document row, soft-deleted or not; `null` when absent (or when `id` cannot be stored). */
export async function loadDoc(sql: SQL, teamId: string, id: string): Promise<DocumentRow | null> {
  if (!storable(id)) return null
  const [r] = await sql.unsafe(`SELECT ${COLUMNS} FROM documents WHERE team_id = $1 AND id = $2`, [teamId, id])
  return r ? toDocRow(r) : null
}

/**
 * Writes a document if the stored change vector is the one the caller expected, as db/store.ts
 * `saveDoc` does, and returns the row as written; throws `ConcurrencyError` when it is not. The
 * check is in the write itself: `expect` a string is an UPDATE whose WHERE names it, `null` an
 * INSERT that does nothing on a row already there; either matching no row is the error. Two
 * writers with the same expectation: the second's statement waits for the first's transaction
 * and then checks the row as the first left it (READ COMMITTED), so exactly one wins. Flags and
 * `deletedAt` not given keep the stored ones (read in the same statement, so `current` is only
 * checked, never trusted). A `current` without `expect` is checked as if it were the expectation. Run it in the caller's transaction: the change vector is taken first
 * (change-vector.ts), and a ConcurrencyError should roll that back with the rest.
 */
export async function saveDoc(tx: SQL, input: SaveDoc): Promise<DocumentRow> {
  if (!storable(input.id) || !storable(input.canonicalId)) throw new Error('A document id with a lone surrogate or a NUL character cannot be stored')
  if (input.expect !== undefined && input.current !== undefined && (input.current?.changeVector ?? null) !== input.expect) {
    throw new ConcurrencyError(input.id)
  }
  // A caller that gives the row it read (`current`) and no `expect` writes over that row as it
  // read it: on SQLite the write lock keeps it so until the commit; here another transaction may
  // have changed it since (READ COMMITTED), so it is checked as an expectation, or two writers
  // that passed the same If-Match would both win.
  const expected = input.expect !== undefined ? input.expect : input.current === undefined ? undefined : (input.current?.changeVector ?? null)
  const changeVector = await nextChangeVector(tx)
  const updatedAt = new Date().toISOString()
  // $1 team, $2 id, $3 collection, $4 body, $5 change vector, $6 published or null (keep), $7 archived or null,
  // $8 deleted_at, $9 keep the stored deleted_at, $10 updated at; then $11 expected (UPDATE) or $11 canonical id, $12 kind (INSERT).
  const params = [input.teamId, input.id, input.collection, JSON.stringify(input.body), changeVector,
    input.published ?? null, input.archived ?? null, input.deletedAt ?? null, input.deletedAt === undefined, updatedAt]
  const set = `collection = $3, body = $4::text::json, change_vector = $5, published = COALESCE($6::boolean, documents.published),
    archived = COALESCE($7::boolean, documents.archived), deleted_at = CASE WHEN $9::boolean THEN documents.deleted_at ELSE $8::text END, updated_at = $10`
  const insert = `INSERT INTO documents (team_id, id, canonical_id, kind, collection, body, change_vector, published, archived, deleted_at, updated_at)
    VALUES ($1, $2, $11, $12, $3, $4::text::json, $5, COALESCE($6::boolean, false), COALESCE($7::boolean, false), $8::text, $10)`
  const returning = 'RETURNING published, archived, deleted_at'
  const [written] = await (typeof expected === 'string'
    ? tx.unsafe(`UPDATE documents SET ${set} WHERE team_id = $1 AND id = $2 AND change_vector = $11 ${returning}`, [...params, expected])
    : tx.unsafe(
        expected === null
          ? `${insert} ON CONFLICT (team_id, id) DO NOTHING ${returning}`
          // canonical_id and kind follow from the id and never change: an update leaves them (and their index) alone, as on SQLite.
          : `${insert} ON CONFLICT (team_id, id) DO UPDATE SET ${set} ${returning}`,
        [...params, input.canonicalId, input.kind],
      ))
  if (!written) throw new ConcurrencyError(input.id)
  return {
    teamId: input.teamId, id: input.id, canonicalId: input.canonicalId, kind: input.kind, collection: input.collection,
    body: input.body, changeVector, published: written.published, archived: written.archived, deletedAt: written.deleted_at, updatedAt,
  }
}

/**
 * Deletes a document row outright (siblings: discard draft, consumed schedule): true when it
 * deleted it, false when there was none, `ConcurrencyError` when `expect` is not its change
 * vector. One statement: the DELETE names `expect`, and whether the row was there is read from
 * the statement's snapshot.
 */
export async function deleteDoc(sql: SQL, teamId: string, id: string, expect?: string): Promise<boolean> {
  if (!storable(id)) return false
  const [r] = await sql.unsafe(
    `WITH gone AS (DELETE FROM documents WHERE team_id = $1 AND id = $2 AND ($3::text IS NULL OR change_vector = $3::text) RETURNING 1)
     SELECT (SELECT count(*) FROM gone)::int AS deleted, EXISTS (SELECT 1 FROM documents WHERE team_id = $1 AND id = $2) AS present`,
    [teamId, id, expect ?? null],
  )
  if (r.deleted > 0) return true
  if (expect !== undefined && r.present) throw new ConcurrencyError(id)
  return false
}
