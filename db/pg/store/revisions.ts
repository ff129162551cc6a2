/**
 * Revisions on PostgreSQL (the twins of db/store.ts `putRevision`, `revisionEntriesFrom`,
 * `listRevisions`, `revisionsFrom`, `countRevisions`, `revisionByChangeVector`, and of
 * `revision_locales` upkeep): the same rows, the same body encoding, the same dense ordinal.
 */
import type { SQL } from 'bun'
import { summaryOf } from '../../store-common'
import type { RevisionEntry } from '../../store'
import type { RevisionRow } from '../../schema'
import { decodeStoredAll, encodeWith, nextOrdinal } from './revision-bodies'

/**
 * Records a revision of `documentId` holding `body` exactly as saved under `changeVector`, stored
 * as on SQLite (a keyframe every KEYFRAME_EVERY ordinals, deltas against it in between), and for
 * a stamped one its `summary` and its locales in `revision_locales`, in one statement with the
 * row. The ordinal is the document's highest plus one: run it in the transaction that took
 * `changeVector` (change-vector.ts), whose lock on the counter keeps any other writer from
 * adding a revision in between. Without it, two writers of one document at once get the same
 * ordinal and the second fails on `revisions_doc_ordinal` rather than leave a gap.
 */
export async function putRevision(
  tx: SQL,
  input: { teamId: string; documentId: string; changeVector: string; body: Record<string, unknown>; stamped: boolean },
): Promise<RevisionRow> {
  const createdAt = new Date().toISOString()
  const { ordinal, keyframe } = await nextOrdinal(tx, input.teamId, input.documentId)
  const body = encodeWith(ordinal, JSON.stringify(input.body), keyframe)
  const locales = input.stamped ? localesOf(input.body) : []
  // max(): the latest time even if a clock stepped back, as on SQLite; text order is time order (COLLATE "C").
  const [row] = await tx.unsafe(
    `WITH added AS (
       INSERT INTO revisions (team_id, document_id, ordinal, change_vector, body, summary, stamped, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq
     ), noted AS (
       INSERT INTO revision_locales (team_id, document_id, locale, last_ordinal, last_at)
       SELECT $1, $2, locale, $3, $8 FROM unnest($9::text[]) AS locale
       ON CONFLICT (team_id, document_id, locale) DO UPDATE SET last_ordinal = GREATEST(revision_locales.last_ordinal, excluded.last_ordinal),
         last_at = GREATEST(revision_locales.last_at, excluded.last_at)
     )
     SELECT seq::float8 AS seq FROM added`,
    [input.teamId, input.documentId, ordinal, input.changeVector, body, input.stamped ? summaryOf(input.body) : null, input.stamped, createdAt,
      tx.array(locales, 'TEXT')],
  )
  return { seq: row.seq, ordinal, ...input, createdAt }
}

/** The locales a Published Version carries (db/store.ts `noteLocales`): the keys of `body.locales` when it is an object. */
function localesOf(body: Record<string, unknown>): string[] {
  const locales = body.locales
  return locales && typeof locales === 'object' ? Object.keys(locales) : []
}

/**
 * The version page query: up to `$4` revisions with `ordinal <= $3`, newest first, a seek on
 * `revisions_doc_ordinal` read backwards and stopped after `$4` rows, whatever `$3` is, since
 * ordinals are dense. Exported so a test plans this very text.
 */
export const ENTRIES_PAGE = `SELECT ordinal, change_vector, stamped, summary, CASE WHEN summary IS NULL AND stamped THEN body END AS body
  FROM revisions WHERE team_id = $1 AND document_id = $2 AND ordinal <= $3 ORDER BY ordinal DESC LIMIT $4`

/** Up to `limit` revisions with `ordinal <= fromOrdinal`, newest first, as version rows need them. */
export async function revisionEntriesFrom(sql: SQL, teamId: string, documentId: string, fromOrdinal: number, limit: number): Promise<RevisionEntry[]> {
  const rows: { ordinal: number; change_vector: string; stamped: boolean; summary: string | null; body: Uint8Array | null }[] =
    await sql.unsafe(ENTRIES_PAGE, [teamId, documentId, fromOrdinal, limit])
  const unsummarised = rows.filter((r) => r.summary === null && r.body !== null)
  const texts = await decodeStoredAll(sql, unsummarised.map((r) => r.body!))
  const bodies = new Map(unsummarised.map((r, i) => [r, JSON.parse(texts[i]!) as Record<string, unknown>]))
  return rows.map((r) => {
    const entry = { ordinal: r.ordinal, changeVector: r.change_vector, stamped: r.stamped }
    if (r.summary !== null) {
      const [publishedAt, publishedBy, locales] = JSON.parse(r.summary) as [string, string, string[]]
      return { ...entry, publishedAt, publishedBy, locales }
    }
    const body = bodies.get(r)
    if (!body) return { ...entry, locales: [] }
    return { ...entry, publishedAt: body.__publishedAt, publishedBy: body.__publishedBy, locales: Object.keys((body.locales ?? {}) as object) }
  })
}

const REVISION_COLUMNS = `seq::float8 AS seq, ordinal, team_id, document_id, change_vector, body, stamped, created_at`

/** Whole revisions, the same seek as `ENTRIES_PAGE`. */
export const REVISIONS_PAGE = `SELECT ${REVISION_COLUMNS} FROM revisions
  WHERE team_id = $1 AND document_id = $2 AND ordinal <= $3 ORDER BY ordinal DESC LIMIT $4`

interface RevisionRecord {
  seq: number; ordinal: number; team_id: string; document_id: string; change_vector: string; body: Uint8Array; stamped: boolean; created_at: string
}

/** Stored revisions as callers see them: each body decoded, the keyframes they need read once. */
async function toRevisionRows(sql: SQL, records: RevisionRecord[]): Promise<RevisionRow[]> {
  const texts = await decodeStoredAll(sql, records.map((r) => r.body))
  return records.map((r, i) => ({
    seq: r.seq, ordinal: r.ordinal, teamId: r.team_id, documentId: r.document_id, changeVector: r.change_vector,
    body: JSON.parse(texts[i]!), stamped: r.stamped, createdAt: r.created_at,
  }))
}

/** Raw revisions of a document, newest first: `limit` of them from raw offset `start`. */
export async function listRevisions(sql: SQL, teamId: string, documentId: string, start: number, limit: number): Promise<RevisionRow[]> {
  const ordinal = (await countRevisions(sql, teamId, documentId)) - start
  return ordinal > 0 ? revisionsFrom(sql, teamId, documentId, ordinal, limit) : []
}

/** Up to `limit` revisions of a document with `ordinal <= fromOrdinal`, newest first. */
export async function revisionsFrom(sql: SQL, teamId: string, documentId: string, fromOrdinal: number, limit: number): Promise<RevisionRow[]> {
  const records: RevisionRecord[] = await sql.unsafe(REVISIONS_PAGE, [teamId, documentId, fromOrdinal, limit])
  return toRevisionRows(sql, records)
}

/** How many revisions a document has: its highest ordinal, one index seek. */
export async function countRevisions(sql: SQL, teamId: string, documentId: string): Promise<number> {
  const [row] = await sql`SELECT max(ordinal) AS n FROM revisions WHERE team_id = ${teamId} AND document_id = ${documentId}`
  return row.n ?? 0
}

/** The revision stored under a change vector, whatever document it belongs to. */
export async function revisionByChangeVector(sql: SQL, teamId: string, changeVector: string): Promise<RevisionRow | null> {
  const records: RevisionRecord[] = await sql.unsafe(`SELECT ${REVISION_COLUMNS} FROM revisions WHERE team_id = $1 AND change_vector = $2`, [teamId, changeVector])
  const [row] = await toRevisionRows(sql, records)
  return row ?? null
}
