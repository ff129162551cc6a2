/**
 * The background conversion of revision bodies written as plain JSON text (before compression,
 * migration 0009) into their compressed form (db/revision-body.ts), a bounded batch per
 * dispatcher pass while the api runs. Reads handle both forms, so a database is usable at
 * every step; the `revisions_plain` partial index lists the rows still to do, and empties.
 */
import type { SqliteDb as Db, MayWrite } from '../db/client'
import { encodeRevision, summaryOf } from '../db/store'
import type { Logger } from '../core/log'

/** Rows one step converts at most: a few ms of compression, then a short write transaction. */
export const COMPRESS_BATCH = 200

interface PlainRow {
  seq: number
  team_id: string
  document_id: string
  ordinal: number
  stamped: number
  body: string
}

/**
 * Converts up to `max` plain-text revision bodies, oldest first, and fills in the `summary` of
 * each Published Version among them (db/schema.ts); answers how many. Compresses
 * before taking the write lock (a revision never changes, so the text read stays right), then
 * asks `mayWrite` and writes each row only if it is still text (another process may have done it).
 */
export function compressRevisions(db: Db, max = COMPRESS_BATCH, mayWrite: MayWrite = () => true): number {
  const c = db.$client
  const rows = c
    .query<PlainRow, [number]>(
      `SELECT seq, team_id, document_id, ordinal, stamped, body FROM revisions INDEXED BY revisions_plain
       WHERE typeof(body) = 'text' ORDER BY seq LIMIT ?`,
    )
    .all(max)
  if (rows.length === 0) return 0
  const encoded = rows.map((r) => ({
    seq: r.seq,
    body: encodeRevision(c, r.team_id, r.document_id, r.ordinal, r.body),
    summary: r.stamped === 1 ? summaryOf(JSON.parse(r.body)) : null,
  }))
  if (!mayWrite()) return 0
  const update = c.query<never, [Uint8Array, string | null, number]>(`UPDATE revisions SET body = ?, summary = ? WHERE seq = ? AND typeof(body) = 'text'`)
  let converted = 0
  c.transaction(() => {
    for (const row of encoded) converted += update.run(row.body, row.summary, row.seq).changes
  }).immediate()
  return converted
}

/** A dispatcher step: one batch, and a log line when the last plain row is converted. */
export function compressRevisionsStep(db: Db, mayWrite: MayWrite, log: Logger): void {
  const converted = compressRevisions(db, COMPRESS_BATCH, mayWrite)
  if (converted > 0 && converted < COMPRESS_BATCH) log.info({ converted }, 'revision bodies compressed: none left in plain text')
}
