import { eq } from 'drizzle-orm'
import type { Conn } from '../../db/client'
import { contentTypes, type TeamRow } from '../../db/schema'
import { raw } from '../../db/store'

export type ContentTypeRow = typeof contentTypes.$inferSelect

/** Whether the database holds any team (the demo seed's "empty", the api's first-run warning). */
export function hasAnyTeam(conn: Conn): boolean {
  return raw(conn).query('SELECT 1 FROM teams LIMIT 1').get() !== null
}

// Read on every write and publish: cached bun:sqlite statements (see db/store.ts).
export function getTeam(conn: Conn, teamId: string): TeamRow | null {
  const r = raw(conn)
    .query<Record<string, string | number | null>, [string]>('SELECT * FROM teams WHERE id = ?')
    .get(teamId)
  if (!r) return null
  return {
    id: r.id as string,
    workspaceId: r.workspace_id as string,
    locales: JSON.parse(r.locales as string),
    defaultLocale: r.default_locale as string,
    fallbacks: JSON.parse((r.fallbacks as string) ?? '{}'),
    contentIndex: r.content_index == null ? null : JSON.parse(r.content_index as string),
    indexGeneration: r.index_generation as number,
    indexedGeneration: r.indexed_generation as number,
    features: JSON.parse((r.features as string) ?? '{"history":true,"snapshots":true}'),
    createdAt: r.created_at as string,
  }
}

export function getContentType(conn: Conn, teamId: string, name: string): ContentTypeRow | null {
  const r = raw(conn)
    .query<{ team_id: string; name: string; collection: string; urls: number; definition: string }, [string, string]>(
      'SELECT * FROM content_types WHERE team_id = ? AND name = ?',
    )
    .get(teamId, name)
  return r ? { teamId: r.team_id, name: r.name, collection: r.collection, urls: r.urls === 1, definition: JSON.parse(r.definition) } : null
}

/** The team's content types by name (names are ASCII: SQLite's byte order is the alphabetical one). */
export function listContentTypes(conn: Conn, teamId: string): ContentTypeRow[] {
  return conn.select().from(contentTypes).where(eq(contentTypes.teamId, teamId)).orderBy(contentTypes.name).all()
}
