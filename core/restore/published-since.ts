/**
 * Rule 1's "published since the source was taken" (spec.md "Restore semantics"): the locales
 * carried by the Published Versions of a document made after a version or a snapshot. Read from
 * `revision_locales` (db/schema.ts), which keeps per locale the newest such version: a range seek
 * over the document's locales, whatever the number of versions after the source.
 */
import type { Conn } from '../../db/client'
import { raw } from '../../db/store'

/** When a restore's source was taken: a version's ordinal, or a snapshot's creation time. */
export type Taken = { ordinal: number } | { at: string }

/** Locales published after a version (its ordinal). */
export const SINCE_ORDINAL_SQL = 'SELECT locale FROM revision_locales WHERE team_id = ? AND document_id = ? AND last_ordinal > ?'
/** Locales published after a time (a snapshot's creation); ISO times compare as text. */
export const SINCE_TIME_SQL = 'SELECT locale FROM revision_locales WHERE team_id = ? AND document_id = ? AND last_at > ?'

/** The locales of the Published Versions of `documentId` made after `taken`. */
export function localesPublishedSince(conn: Conn, teamId: string, documentId: string, taken: Taken): string[] {
  const [sql, value] = 'ordinal' in taken ? [SINCE_ORDINAL_SQL, taken.ordinal] : [SINCE_TIME_SQL, taken.at]
  return raw(conn)
    .query<{ locale: string }, [string, string, number | string]>(sql)
    .all(teamId, documentId, value)
    .map((r) => r.locale)
}
