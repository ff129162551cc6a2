/**
 * Revision bodies on PostgreSQL: the same stored form as on SQLite (db/revision-body.ts, its
 * encoder and decoder reused as they are), `bytea` in `revisions.body`. Only reading the keyframe
 * of a delta differs: the driver is async, so the keyframes a batch of bodies needs are read
 * first, in one statement, and each body then decodes as on SQLite.
 */
import type { SQL } from 'bun'
import { Reader } from '../../byte-delta'
import { decodeBody, encodeDelta, encodeFull, keyframeBytes, keyframeOf, KEYFRAME_EVERY } from '../../revision-body'

/** The delta form's first byte (db/revision-body.ts), followed by the keyframe's seq as a varint. */
const DELTA = 2

/** The JSON texts of stored bodies, in order; the keyframes the deltas among them name read in one go. */
export async function decodeStoredAll(sql: SQL, stored: readonly Uint8Array[]): Promise<string[]> {
  const seqs = new Set<number>()
  for (const body of stored) if (body[0] === DELTA) seqs.add(new Reader(body, 1).varint())
  const keyframes = new Map<number, Uint8Array>()
  if (seqs.size > 0) {
    const rows: { seq: number; body: Uint8Array }[] = await sql`SELECT seq::float8 AS seq, body FROM revisions WHERE seq = ANY(${sql.array([...seqs], 'BIGINT')})`
    for (const row of rows) keyframes.set(row.seq, keyframeBytes(row.body))
  }
  return stored.map((body) =>
    decodeBody(body, (seq) => {
      const bytes = keyframes.get(seq)
      if (!bytes) throw new Error(`The keyframe of a revision body (seq ${seq}) is missing`)
      return bytes
    }),
  )
}

/**
 * The stored form of revision `ordinal`'s text, as db/store.ts `encodeRevision` makes it: a
 * keyframe, or a delta against its keyframe (`keyframe`: that row's seq and stored body, or null
 * when there is none).
 */
export function encodeWith(ordinal: number, text: string, keyframe: { seq: number; body: Uint8Array } | null): Uint8Array {
  if (keyframeOf(ordinal) === ordinal || !keyframe) return encodeFull(text)
  return encodeDelta(text, keyframe.seq, new TextDecoder().decode(keyframeBytes(keyframe.body)))
}

/**
 * The next ordinal of a document and the keyframe row it will be encoded against, in one read:
 * the ordinal is `max + 1`, its keyframe `keyframeOf(max + 1)` (no row yet when that is the new
 * revision itself).
 */
export async function nextOrdinal(sql: SQL, teamId: string, documentId: string): Promise<{ ordinal: number; keyframe: { seq: number; body: Uint8Array } | null }> {
  const [row] = await sql`SELECT m.n, k.seq::float8 AS seq, k.body FROM (
      SELECT COALESCE(max(ordinal), 0) AS n FROM revisions WHERE team_id = ${teamId} AND document_id = ${documentId}
    ) m LEFT JOIN revisions k ON k.team_id = ${teamId} AND k.document_id = ${documentId} AND k.ordinal = m.n + 1 - (m.n % ${KEYFRAME_EVERY})`
  const ordinal = row.n + 1
  return { ordinal, keyframe: row.seq === null ? null : { seq: row.seq, body: row.body } }
}

/** The stored form of revision `ordinal`'s text: db/store.ts `encodeRevision` on PostgreSQL (its keyframe read by ordinal). */
export async function encodeRevision(sql: SQL, teamId: string, documentId: string, ordinal: number, text: string): Promise<Uint8Array> {
  const keyframe = keyframeOf(ordinal)
  if (keyframe === ordinal) return encodeFull(text)
  const [base] = await sql`SELECT seq::float8 AS seq, body FROM revisions WHERE team_id = ${teamId} AND document_id = ${documentId} AND ordinal = ${keyframe}`
  return encodeWith(ordinal, text, base ?? null)
}
