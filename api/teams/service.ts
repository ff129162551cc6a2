import { and, eq } from 'drizzle-orm'
import type { Conn } from '../../db/client'
import { contentTypes, teams, type TeamRow } from '../../db/schema'

export type ContentTypeRow = typeof contentTypes.$inferSelect

export function getTeam(conn: Conn, teamId: string): TeamRow | null {
  return conn.select().from(teams).where(eq(teams.id, teamId)).get() ?? null
}

export function getContentType(conn: Conn, teamId: string, name: string): ContentTypeRow | null {
  return (
    conn
      .select()
      .from(contentTypes)
      .where(and(eq(contentTypes.teamId, teamId), eq(contentTypes.name, name)))
      .get() ?? null
  )
}

export function listContentTypes(conn: Conn, teamId: string): ContentTypeRow[] {
  return conn.select().from(contentTypes).where(eq(contentTypes.teamId, teamId)).all()
}
