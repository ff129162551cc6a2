/**
 * Snapshot records (table `snapshots`) on PostgreSQL: the async twins of db/queries/snapshots.ts,
 * on a Bun.sql client.
 */
import type { SQL } from 'bun'
import type { SnapshotRow } from '../../queries/snapshots'

export type { SnapshotRow } from '../../queries/snapshots'

const COLUMNS = `team_id AS "teamId", id, document_id AS "documentId", name, created_by AS "createdBy", created_at AS "createdAt",
  expires_at AS "expiresAt", revoked_at AS "revokedAt"`

/** Stores a new snapshot record. */
export async function insertSnapshot(sql: SQL, row: SnapshotRow): Promise<void> {
  await sql`INSERT INTO snapshots (team_id, id, document_id, name, created_by, created_at, expires_at, revoked_at)
    VALUES (${row.teamId}, ${row.id}, ${row.documentId}, ${row.name ?? null}::text, ${row.createdBy}, ${row.createdAt},
      ${row.expiresAt ?? null}::text, ${row.revokedAt ?? null}::text)`
}

/** A snapshot record, or undefined. */
export async function getSnapshot(sql: SQL, teamId: string, id: string): Promise<SnapshotRow | undefined> {
  const [r] = await sql.unsafe(`SELECT ${COLUMNS} FROM snapshots WHERE team_id = $1 AND id = $2`, [teamId, id])
  return r
}

/** Sets a snapshot's name and/or revocation time (a key left out keeps its value; `null` clears it, as drizzle's `set` does on SQLite). */
export async function updateSnapshot(sql: SQL, row: Pick<SnapshotRow, 'teamId' | 'id'>, set: Partial<Pick<SnapshotRow, 'name' | 'revokedAt'>>): Promise<void> {
  if (set.name === undefined && set.revokedAt === undefined) return
  await sql`UPDATE snapshots SET
      name = CASE WHEN ${set.name !== undefined} THEN ${set.name ?? null}::text ELSE name END,
      revoked_at = CASE WHEN ${set.revokedAt !== undefined} THEN ${set.revokedAt ?? null}::text ELSE revoked_at END
    WHERE team_id = ${row.teamId} AND id = ${row.id}`
}

/**
 * Every snapshot record of a document, newest first. SQLite breaks ties of `created_at` by rowid
 * (the later insert first); PostgreSQL has no rowid, so ties go by id, descending. `created_at` is
 * the time the snapshot is made (core/snapshots, `toISOString()`: milliseconds), so the two
 * orders can differ only for two snapshots of one document made in the same millisecond.
 */
export async function snapshotsOf(sql: SQL, teamId: string, documentId: string): Promise<SnapshotRow[]> {
  return [...(await sql.unsafe(`SELECT ${COLUMNS} FROM snapshots WHERE team_id = $1 AND document_id = $2 ORDER BY created_at DESC, id DESC`, [teamId, documentId]))]
}
