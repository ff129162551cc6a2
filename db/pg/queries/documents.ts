/**
 * Document reads past the store's load-and-save on PostgreSQL: the async twins of
 * db/queries/documents.ts, on a Bun.sql client. Ids arrive as a JSON array text, as on SQLite, and
 * are unpacked with `json_array_elements_text` (SQLite's `json_each`). Text compares by bytes
 * (COLLATE "C"), so keyset pages by canonical id answer as on SQLite.
 */
import type { SQL } from 'bun'
import type { ListRow } from '../../queries/documents'
import { asJsonExtract, jsonPathKeys } from './json-extract'

export type { ListRow } from '../../queries/documents'

/** The ids of one page of the whole team, through `documents_canonical`. */
export const LIST_IDS_SQL = `SELECT DISTINCT canonical_id FROM documents
  WHERE team_id = $1 AND canonical_id > $2 AND kind IN ('canonical', 'draft') AND deleted_at IS NULL
  ORDER BY canonical_id LIMIT $3`

/** The ids of one page of one collection, through the partial `documents_collection` index (its WHERE repeated). */
export const LIST_COLLECTION_IDS_SQL = `SELECT DISTINCT canonical_id FROM documents
  WHERE team_id = $1 AND collection = $4 AND canonical_id > $2 AND kind IN ('canonical', 'draft') AND deleted_at IS NULL
  ORDER BY canonical_id LIMIT $3`

/** Up to `limit` canonical ids after `after` (exclusive), of one collection or of the whole team. */
export async function listCanonicalIds(sql: SQL, teamId: string, opts: { collection?: string; after: string; limit: number }): Promise<string[]> {
  const rows = opts.collection === undefined
    ? await sql.unsafe(LIST_IDS_SQL, [teamId, opts.after, opts.limit])
    : await sql.unsafe(LIST_COLLECTION_IDS_SQL, [teamId, opts.after, opts.limit, opts.collection])
  return [...rows].map((r: { canonical_id: string }) => r.canonical_id)
}

interface ListRecord {
  canonical_id: string; kind: 'canonical' | 'draft'; collection: string; content_type: string | null; published: boolean; archived: boolean
  dirty: string | null; updated_at: string; title: string | null; name: string | null
}

/**
 * The canonical and draft rows of `ids` (a JSON array), with their title read at JSON path
 * `locale` (`$.locales."<code>"`). SQLite returns them in no stated order (core/content/list.ts
 * files them by id and kind); here they come by canonical id, then kind.
 */
export async function listRowsOf(sql: SQL, teamId: string, ids: string, locale: string): Promise<ListRow[]> {
  const at = jsonPathKeys(locale)
  const rows = await sql.unsafe(
    `SELECT canonical_id, kind, collection, (nul_safe_json(body) -> 'contentType')::text AS content_type, published, archived,
       (nul_safe_json(body) -> '__dirtyLocales')::text AS dirty, updated_at, (nul_safe_json(body) #> $3::text[])::text AS title, (nul_safe_json(body) #> $4::text[])::text AS name
     FROM documents WHERE team_id = $1 AND canonical_id IN (SELECT json_array_elements_text($2::text::json))
       AND kind IN ('canonical', 'draft') AND deleted_at IS NULL
     ORDER BY canonical_id, kind`,
    [teamId, ids, sql.array([...at, 'title'], 'TEXT'), sql.array([...at, 'name'], 'TEXT')],
  )
  return [...rows].map((r: ListRecord) => ({
    canonical_id: r.canonical_id, kind: r.kind, collection: r.collection, content_type: asJsonExtract(r.content_type) as string,
    published: r.published ? 1 : 0, archived: r.archived ? 1 : 0, dirty: asJsonExtract(r.dirty) as string | null, updated_at: r.updated_at,
    title: asJsonExtract(r.title) ?? asJsonExtract(r.name),
  }))
}

/** The scheduled publishes of a page's ids, one primary-key probe per id, by document id (SQLite's key order). */
export const LIST_SCHEDULES_SQL = `SELECT document_id, publish_at::float8 AS publish_at FROM schedules
  WHERE team_id = $1 AND document_id IN (SELECT json_array_elements_text($2::text::json)) ORDER BY document_id`

/** The schedules (document id, publish time in ms) of `ids` (a JSON array). */
export async function schedulesOfIds(sql: SQL, teamId: string, ids: string): Promise<[string, number][]> {
  const rows = await sql.unsafe(LIST_SCHEDULES_SQL, [teamId, ids])
  return [...rows].map((r: { document_id: string; publish_at: number }) => [r.document_id, r.publish_at])
}

/** Whether any document (canonical or sibling, soft-deleted too) has canonical id `canonicalId`. */
export async function canonicalIdUsed(sql: SQL, teamId: string, canonicalId: string): Promise<boolean> {
  return (await sql`SELECT 1 FROM documents WHERE team_id = ${teamId} AND canonical_id = ${canonicalId} LIMIT 1`).length > 0
}

/** Locales published after a version (its ordinal). */
export const SINCE_ORDINAL_SQL = 'SELECT locale FROM revision_locales WHERE team_id = $1 AND document_id = $2 AND last_ordinal > $3 ORDER BY locale'
/** Locales published after a time (a snapshot's creation); ISO times compare as text (bytes). */
export const SINCE_TIME_SQL = 'SELECT locale FROM revision_locales WHERE team_id = $1 AND document_id = $2 AND last_at > $3 ORDER BY locale'

/**
 * The locales of the Published Versions of `documentId` made after ordinal `since` (a number) or
 * time `since` (an ISO string), in locale order (SQLite's key order), from `revision_locales`.
 */
export async function localesPublishedAfter(sql: SQL, teamId: string, documentId: string, since: number | string): Promise<string[]> {
  const rows = await sql.unsafe(typeof since === 'number' ? SINCE_ORDINAL_SQL : SINCE_TIME_SQL, [teamId, documentId, since])
  return [...rows].map((r: { locale: string }) => r.locale)
}
