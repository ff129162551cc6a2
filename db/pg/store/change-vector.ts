/**
 * Change vectors on PostgreSQL (the twin of db/store.ts `nextChangeVector`): `A:<etag>-<node>`,
 * the etag a database-wide counter bumped inside the caller's transaction, the node id fixed per
 * database.
 *
 * Why a row in `meta` updated with RETURNING, and not a SEQUENCE: `nextval()` is outside
 * transactions. Its numbers are handed out in call order, not commit order, a rolled-back
 * transaction burns one, and two writers never wait for each other. The row keeps SQLite's
 * meaning exactly: the bump is part of the transaction (rolled back with it), and it holds the
 * row's lock until that transaction ends, so writers that take a change vector are serialised
 * as SQLite's single writer serialises them, and etag order is commit order. The code built on
 * SQLite counts on that: what a writer reads after its bump (READ COMMITTED: each statement sees
 * what committed before it) no other such writer can change until it commits; the next
 * revision's ordinal is `max(ordinal) + 1` (revisions.ts); a copy from SQLite brings the counter
 * and the node id along in `meta`. The price is the same as SQLite's: one writer at a time from
 * its bump to its commit, across every process. So a writer takes its change vector as late as
 * it can, after its reads and checks, and a transaction that would lock document rows before its
 * bump may deadlock with one that bumped first (PostgreSQL then ends one of them: retry it).
 */
import type { SQL } from 'bun'

/**
 * A fresh change vector. Run it on the client of the caller's transaction (`sql.begin(tx => ...)`):
 * on the pool the bump commits at once and serialises nothing.
 */
export async function nextChangeVector(tx: SQL): Promise<string> {
  const [row] = await tx`WITH bumped AS (
      INSERT INTO meta (key, value) VALUES ('etag', '1')
      ON CONFLICT (key) DO UPDATE SET value = (meta.value::bigint + 1)::text RETURNING value
    )
    SELECT bumped.value AS etag, (SELECT value FROM meta WHERE key = 'node') AS node FROM bumped`
  return `A:${row.etag}-${row.node ?? (await nodeId(tx))}`
}

/** The node id, made on the database's first write (as db/store.ts makes it, 22 characters of a UUID). */
async function nodeId(tx: SQL): Promise<string> {
  const fresh = crypto.randomUUID().replaceAll('-', '').slice(0, 22)
  await tx`INSERT INTO meta (key, value) VALUES ('node', ${fresh}) ON CONFLICT (key) DO NOTHING`
  const [row] = await tx`SELECT value FROM meta WHERE key = 'node'`
  return row.value
}
