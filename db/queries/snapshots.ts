/**
 * Snapshot records (table `snapshots`; a snapshot's body is the `<id>/snapshot/<token>`
 * document, db/store.ts): what core/snapshots/ and History read and write.
 */
import { and, desc, eq, sql } from 'drizzle-orm'
import { useClient, type Conn } from '../client'
import { snapshots } from '../schema'

export type SnapshotRow = typeof snapshots.$inferSelect

/** Stores a new snapshot record. */
export async function insertSnapshot(conn: Conn, row: SnapshotRow): Promise<void> {
  return await useClient(conn, () => {
    conn.insert(snapshots).values(row).run()
  })
}

/** A snapshot record, or undefined. */
export async function getSnapshot(conn: Conn, teamId: string, id: string): Promise<SnapshotRow | undefined> {
  return await useClient(conn, () => conn.select().from(snapshots).where(and(eq(snapshots.teamId, teamId), eq(snapshots.id, id))).get())
}

/** Sets a snapshot's name and/or revocation time. */
export async function updateSnapshot(conn: Conn, row: Pick<SnapshotRow, 'teamId' | 'id'>, set: Partial<Pick<SnapshotRow, 'name' | 'revokedAt'>>): Promise<void> {
  return await useClient(conn, () => {
    conn.update(snapshots).set(set).where(and(eq(snapshots.teamId, row.teamId), eq(snapshots.id, row.id))).run()
  })
}

/** Every snapshot record of a document, newest first (ties: the later insert first). */
export async function snapshotsOf(conn: Conn, teamId: string, documentId: string): Promise<SnapshotRow[]> {
  return await useClient(conn, () => conn
    .select()
    .from(snapshots)
    .where(and(eq(snapshots.teamId, teamId), eq(snapshots.documentId, documentId)))
    .orderBy(desc(snapshots.createdAt), desc(sql`rowid`))
    .all())
}
