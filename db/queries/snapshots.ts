/**
 * Snapshot records (table `snapshots`; a snapshot's body is the `<id>/snapshot/<token>`
 * document, db/store.ts): what core/snapshots/ and History read and write.
 */
import { and, desc, eq, sql } from 'drizzle-orm'
import { useClient, type SqliteConn as Conn } from '../client'
import { byDialect } from '../dialect'
import * as pg from '../pg/queries/snapshots'
import { snapshots } from '../schema'

export type SnapshotRow = typeof snapshots.$inferSelect

/** Stores a new snapshot record. */
async function insertSnapshotOnSqlite(conn: Conn, row: SnapshotRow): Promise<void> {
  return await useClient(conn, () => {
    conn.insert(snapshots).values(row).run()
  })
}

/** A snapshot record, or undefined. */
async function getSnapshotOnSqlite(conn: Conn, teamId: string, id: string): Promise<SnapshotRow | undefined> {
  return await useClient(conn, () => conn.select().from(snapshots).where(and(eq(snapshots.teamId, teamId), eq(snapshots.id, id))).get())
}

/** Sets a snapshot's name and/or revocation time. */
async function updateSnapshotOnSqlite(conn: Conn, row: Pick<SnapshotRow, 'teamId' | 'id'>, set: Partial<Pick<SnapshotRow, 'name' | 'revokedAt'>>): Promise<void> {
  return await useClient(conn, () => {
    conn.update(snapshots).set(set).where(and(eq(snapshots.teamId, row.teamId), eq(snapshots.id, row.id))).run()
  })
}

/** Every snapshot record of a document, newest first (ties: the later insert first). */
async function snapshotsOfOnSqlite(conn: Conn, teamId: string, documentId: string): Promise<SnapshotRow[]> {
  return await useClient(conn, () => conn
    .select()
    .from(snapshots)
    .where(and(eq(snapshots.teamId, teamId), eq(snapshots.documentId, documentId)))
    .orderBy(desc(snapshots.createdAt), desc(sql`rowid`))
    .all())
}

export const insertSnapshot = byDialect(insertSnapshotOnSqlite, pg.insertSnapshot)
export const getSnapshot = byDialect(getSnapshotOnSqlite, pg.getSnapshot)
export const updateSnapshot = byDialect(updateSnapshotOnSqlite, pg.updateSnapshot)
export const snapshotsOf = byDialect(snapshotsOfOnSqlite, pg.snapshotsOf)
