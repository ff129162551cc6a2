/**
 * Rule 1's "published since the source was taken" (spec.md "Restore semantics"): the locales
 * carried by the Published Versions of a document made after a version or a snapshot. Read from
 * `revision_locales` (db/schema.ts), which keeps per locale the newest such version: a range seek
 * over the document's locales, whatever the number of versions after the source.
 */
import type { Conn } from '../../db/client'
import { localesPublishedAfter } from '../../db/queries/documents'

/** When a restore's source was taken: a version's ordinal, or a snapshot's creation time. */
export type Taken = { ordinal: number } | { at: string }

/** The locales of the Published Versions of `documentId` made after `taken`. */
export async function localesPublishedSince(conn: Conn, teamId: string, documentId: string, taken: Taken): Promise<string[]> {
  return await localesPublishedAfter(conn, teamId, documentId, 'ordinal' in taken ? taken.ordinal : taken.at)
}
