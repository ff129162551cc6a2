/**
 * Reading revisions (part of the document store, db/store.ts re-exports it): raw pages by
 * ordinal, the version list's entries, one by change vector, and a document's count.
 */
import type { Database } from 'bun:sqlite'
import { useClient, type SqliteConn as Conn } from './client'
import { byDialect } from './dialect'
import * as pg from './pg/store'
import { decodeStored, type StoredBody } from './revision-body'
import type { RevisionRow } from './schema'

/** A revision as a version page needs it: no body, unless its summary is missing. */
export interface RevisionEntry {
  ordinal: number
  changeVector: string
  stamped: boolean
  /** A stamped revision's version row fields (from `summary`, or else from its body). */
  publishedAt?: unknown
  publishedBy?: unknown
  locales: string[]
}

/** Up to `limit` revisions with `ordinal <= fromOrdinal`, newest first, as version rows need them. */
function revisionEntriesFromNow(conn: Conn, teamId: string, documentId: string, fromOrdinal: number, limit: number): RevisionEntry[] {
  const client = conn.$client
  return client
    .query<{ ordinal: number; change_vector: string; stamped: number; summary: string | null; body: StoredBody | null }, [string, string, number, number]>(
      `SELECT ordinal, change_vector, stamped, summary, CASE WHEN summary IS NULL AND stamped = 1 THEN body END AS body
       FROM revisions WHERE team_id = ? AND document_id = ? AND ordinal <= ? ORDER BY ordinal DESC LIMIT ?`,
    )
    .all(teamId, documentId, fromOrdinal, limit)
    .map((r) => {
      const entry = { ordinal: r.ordinal, changeVector: r.change_vector, stamped: r.stamped === 1 }
      if (r.summary !== null) {
        const [publishedAt, publishedBy, locales] = JSON.parse(r.summary) as [string, string, string[]]
        return { ...entry, publishedAt, publishedBy, locales }
      }
      if (r.body === null) return { ...entry, locales: [] }
      const body = JSON.parse(decodeStored(client, r.body)) as Record<string, unknown>
      return { ...entry, publishedAt: body.__publishedAt, publishedBy: body.__publishedBy, locales: Object.keys((body.locales ?? {}) as object) }
    })
}

/** `revisionEntriesFromNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function revisionEntriesFromOnSqlite(conn: Conn, teamId: string, documentId: string, fromOrdinal: number, limit: number): Promise<RevisionEntry[]> {
  return await useClient(conn, () => revisionEntriesFromNow(conn, teamId, documentId, fromOrdinal, limit))
}

interface RevisionRecord {
  seq: number; ordinal: number; team_id: string; document_id: string; change_vector: string; body: StoredBody; stamped: number; created_at: string
}

/** A stored revision as callers see it: the body decoded from whichever form the row is in. */
const toRevisionRow = (client: Database) => (r: RevisionRecord): RevisionRow => ({
  seq: r.seq, ordinal: r.ordinal, teamId: r.team_id, documentId: r.document_id, changeVector: r.change_vector,
  body: JSON.parse(decodeStored(client, r.body)), stamped: r.stamped === 1, createdAt: r.created_at,
})

/** Raw revisions of a document, newest first: `limit` of them from raw offset `start`. */
function listRevisionsNow(conn: Conn, teamId: string, documentId: string, start: number, limit: number): RevisionRow[] {
  const ordinal = countRevisionsNow(conn, teamId, documentId) - start
  return ordinal > 0 ? revisionsFromNow(conn, teamId, documentId, ordinal, limit) : []
}

/** `listRevisionsNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function listRevisionsOnSqlite(conn: Conn, teamId: string, documentId: string, start: number, limit: number): Promise<RevisionRow[]> {
  return await useClient(conn, () => listRevisionsNow(conn, teamId, documentId, start, limit))
}

/** Up to `limit` revisions of a document with `ordinal <= fromOrdinal`, newest first. */
function revisionsFromNow(conn: Conn, teamId: string, documentId: string, fromOrdinal: number, limit: number): RevisionRow[] {
  const client = conn.$client
  return client
    .query<RevisionRecord, [string, string, number, number]>(
      'SELECT * FROM revisions WHERE team_id = ? AND document_id = ? AND ordinal <= ? ORDER BY ordinal DESC LIMIT ?',
    )
    .all(teamId, documentId, fromOrdinal, limit)
    .map(toRevisionRow(client))
}

/** `revisionsFromNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function revisionsFromOnSqlite(conn: Conn, teamId: string, documentId: string, fromOrdinal: number, limit: number): Promise<RevisionRow[]> {
  return await useClient(conn, () => revisionsFromNow(conn, teamId, documentId, fromOrdinal, limit))
}

/** How many revisions a document has: its highest ordinal, one index seek. */
export function countRevisionsNow(conn: Conn, teamId: string, documentId: string): number {
  return conn.$client
    .query<{ n: number | null }, [string, string]>('SELECT max(ordinal) AS n FROM revisions WHERE team_id = ? AND document_id = ?')
    .get(teamId, documentId)!.n ?? 0
}

/** `countRevisionsNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function countRevisionsOnSqlite(conn: Conn, teamId: string, documentId: string): Promise<number> {
  return await useClient(conn, () => countRevisionsNow(conn, teamId, documentId))
}

/** The revision stored under a change vector, whatever document it belongs to. */
function revisionByChangeVectorNow(conn: Conn, teamId: string, changeVector: string): RevisionRow | null {
  const client = conn.$client
  const r = client.query<RevisionRecord, [string, string]>('SELECT * FROM revisions WHERE team_id = ? AND change_vector = ?').get(teamId, changeVector)
  return r ? toRevisionRow(client)(r) : null
}

/** `revisionByChangeVectorNow` for any caller: inside its transaction, or once the connection is free (db/transaction.ts). */
async function revisionByChangeVectorOnSqlite(conn: Conn, teamId: string, changeVector: string): Promise<RevisionRow | null> {
  return await useClient(conn, () => revisionByChangeVectorNow(conn, teamId, changeVector))
}

export const revisionEntriesFrom = byDialect(revisionEntriesFromOnSqlite, pg.revisionEntriesFrom)
export const listRevisions = byDialect(listRevisionsOnSqlite, pg.listRevisions)
export const revisionsFrom = byDialect(revisionsFromOnSqlite, pg.revisionsFrom)
export const countRevisions = byDialect(countRevisionsOnSqlite, pg.countRevisions)
export const revisionByChangeVector = byDialect(revisionByChangeVectorOnSqlite, pg.revisionByChangeVector)
