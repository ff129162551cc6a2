/**
 * Document reads past the store's load-and-save (db/store.ts): the document list's pages
 * (core/content/list.ts), whether a canonical id is taken (copy), and the locales published since
 * a restore's source was taken (core/restore/published-since.ts).
 */
import { and, eq } from 'drizzle-orm'
import { useClient, type SqliteConn as Conn } from '../client'
import { byDialect } from '../dialect'
import * as pg from '../pg/queries/documents'
import { documents } from '../schema'

/** The ids of one page of the whole team, through `documents_canonical`. */
export const LIST_IDS_SQL = `SELECT DISTINCT canonical_id FROM documents INDEXED BY documents_canonical
  WHERE team_id = $team AND canonical_id > $after AND kind IN ('canonical', 'draft') AND deleted_at IS NULL
  ORDER BY canonical_id LIMIT $limit`

/**
 * The ids of one page of one collection: a seek into the partial `documents_collection` index
 * (team, collection, canonical id), which holds only the rows this query keeps, so a page reads
 * about as many entries as it returns whatever the team's size. Its WHERE repeats the index's.
 */
export const LIST_COLLECTION_IDS_SQL = `SELECT DISTINCT canonical_id FROM documents INDEXED BY documents_collection
  WHERE team_id = $team AND collection = $collection AND canonical_id > $after AND kind IN ('canonical', 'draft') AND deleted_at IS NULL
  ORDER BY canonical_id LIMIT $limit`

/** The scheduled publishes of a page's ids: a schedule is keyed by (team, document id), so one primary-key probe per row. */
export const LIST_SCHEDULES_SQL = 'SELECT document_id, publish_at FROM schedules WHERE team_id = ? AND document_id IN (SELECT value FROM json_each(?))'

/** A canonical or draft row as a list page shows it. */
export interface ListRow {
  canonical_id: string
  kind: 'canonical' | 'draft'
  collection: string
  content_type: string
  published: number
  archived: number
  dirty: string | null
  updated_at: string
  title: unknown
}

/** Up to `limit` canonical ids after `after` (exclusive), of one collection or of the whole team. */
async function listCanonicalIdsOnSqlite(conn: Conn, teamId: string, opts: { collection?: string; after: string; limit: number }): Promise<string[]> {
  return await useClient(conn, (c) => ((opts.collection === undefined
    ? c.query(LIST_IDS_SQL).values({ team: teamId, after: opts.after, limit: opts.limit })
    : c.query(LIST_COLLECTION_IDS_SQL).values({ team: teamId, collection: opts.collection, after: opts.after, limit: opts.limit })
  ) as [string][]).map(([id]) => id))
}

/** The canonical and draft rows of `ids` (a JSON array), with their title read at JSON path `locale` (`$.locales."<code>"`). */
async function listRowsOfOnSqlite(conn: Conn, teamId: string, ids: string, locale: string): Promise<ListRow[]> {
  return await useClient(conn, (c) => c.query(
    `SELECT canonical_id, kind, collection, json_extract(body, '$.contentType') AS content_type, published, archived,
       json_extract(body, '$.__dirtyLocales') AS dirty, updated_at,
       coalesce(json_extract(body, $title), json_extract(body, $name)) AS title
     FROM documents WHERE team_id = $team AND canonical_id IN (SELECT value FROM json_each($ids)) AND kind IN ('canonical', 'draft') AND deleted_at IS NULL`,
  ).all({ team: teamId, ids, title: `${locale}.title`, name: `${locale}.name` }) as ListRow[])
}

/** The schedules (document id, publish time in ms) of `ids` (a JSON array). */
async function schedulesOfIdsOnSqlite(conn: Conn, teamId: string, ids: string): Promise<[string, number][]> {
  return await useClient(conn, (c) => c.query(LIST_SCHEDULES_SQL).values(teamId, ids) as [string, number][])
}

/** Whether any document (canonical or sibling, soft-deleted too) has canonical id `canonicalId`. */
async function canonicalIdUsedOnSqlite(conn: Conn, teamId: string, canonicalId: string): Promise<boolean> {
  return await useClient(conn, () => conn.select({ id: documents.id }).from(documents).where(and(eq(documents.teamId, teamId), eq(documents.canonicalId, canonicalId))).limit(1).get() !== undefined)
}

/** Locales published after a version (its ordinal). */
export const SINCE_ORDINAL_SQL = 'SELECT locale FROM revision_locales WHERE team_id = ? AND document_id = ? AND last_ordinal > ?'
/** Locales published after a time (a snapshot's creation); ISO times compare as text. */
export const SINCE_TIME_SQL = 'SELECT locale FROM revision_locales WHERE team_id = ? AND document_id = ? AND last_at > ?'

/**
 * The locales of the Published Versions of `documentId` made after ordinal `since` (a number)
 * or time `since` (an ISO string), from `revision_locales` (db/schema.ts): a range seek over the
 * document's locales, whatever the number of versions after it.
 */
async function localesPublishedAfterOnSqlite(conn: Conn, teamId: string, documentId: string, since: number | string): Promise<string[]> {
  return await useClient(conn, (c) => c
    .query<{ locale: string }, [string, string, number | string]>(typeof since === 'number' ? SINCE_ORDINAL_SQL : SINCE_TIME_SQL)
    .all(teamId, documentId, since)
    .map((r) => r.locale))
}

export const listCanonicalIds = byDialect(listCanonicalIdsOnSqlite, pg.listCanonicalIds)
export const listRowsOf = byDialect(listRowsOfOnSqlite, pg.listRowsOf)
export const schedulesOfIds = byDialect(schedulesOfIdsOnSqlite, pg.schedulesOfIds)
export const canonicalIdUsed = byDialect(canonicalIdUsedOnSqlite, pg.canonicalIdUsed)
export const localesPublishedAfter = byDialect(localesPublishedAfterOnSqlite, pg.localesPublishedAfter)
