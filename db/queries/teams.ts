/**
 * Teams, their content types and memberships: the named operations core/teams/ (and every write
 * that checks a team's locales or a document's content type) runs on the store.
 */
import { and, eq, ne, sql } from 'drizzle-orm'
import { useClient, type Conn, type Tx } from '../client'
import { contentTypes, documents, memberships, teams, type TeamRow } from '../schema'
import { nextChangeVector, raw } from '../store'

export type ContentTypeRow = typeof contentTypes.$inferSelect

/** Whether the database holds any team (the demo seed's "empty", the api's first-run warning). */
export async function hasAnyTeam(conn: Conn): Promise<boolean> {
  return await useClient(conn, () => raw(conn).query('SELECT 1 FROM teams LIMIT 1').get() !== null)
}

/** A team, or null. Read on every write and publish: a cached bun:sqlite statement (see db/store.ts). */
export async function getTeam(conn: Conn, teamId: string): Promise<TeamRow | null> {
  return await useClient(conn, () => {
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
  })
}

/** A team's default locale, or null for an unknown team (the document list reads titles in it). */
export async function teamDefaultLocale(conn: Conn, teamId: string): Promise<string | null> {
  return await useClient(conn, (c) => (c.query('SELECT default_locale FROM teams WHERE id = ?').get(teamId) as { default_locale: string } | null)?.default_locale ?? null)
}

/** A content type of the team, or null. */
export async function getContentType(conn: Conn, teamId: string, name: string): Promise<ContentTypeRow | null> {
  return await useClient(conn, () => {
    const r = raw(conn)
      .query<{ team_id: string; name: string; collection: string; urls: number; definition: string }, [string, string]>(
        'SELECT * FROM content_types WHERE team_id = ? AND name = ?',
      )
      .get(teamId, name)
    return r ? { teamId: r.team_id, name: r.name, collection: r.collection, urls: r.urls === 1, definition: JSON.parse(r.definition) } : null
  })
}

/** The team's content types by name (names are ASCII: SQLite's byte order is the alphabetical one). */
export async function listContentTypes(conn: Conn, teamId: string): Promise<ContentTypeRow[]> {
  return await useClient(conn, () => conn.select().from(contentTypes).where(eq(contentTypes.teamId, teamId)).orderBy(contentTypes.name).all())
}

/** Creates or replaces a content type row. */
export async function upsertContentType(tx: Conn, values: ContentTypeRow): Promise<void> {
  return await useClient(tx, () => {
    tx.insert(contentTypes).values(values).onConflictDoUpdate({ target: [contentTypes.teamId, contentTypes.name], set: values }).run()
  })
}

/**
 * Moves every document of content type `name` (siblings too, activity documents not) to
 * `collection`, each with a new change vector.
 */
export async function moveContentTypeDocuments(tx: Conn, teamId: string, name: string, collection: string): Promise<void> {
  const moved = await useClient(tx, () => tx.select({ id: documents.id }).from(documents)
    .where(and(eq(documents.teamId, teamId), ne(documents.kind, 'activity'), sql`json_extract(${documents.body}, '$.contentType') = ${name}`)).all())
  const updatedAt = new Date().toISOString()
  for (const { id } of moved) {
    const changeVector = await nextChangeVector(tx)
    await useClient(tx, () => tx.update(documents).set({ collection, changeVector, updatedAt })
      .where(and(eq(documents.teamId, teamId), eq(documents.id, id))).run())
  }
}

/** Sets a team's locale settings (any of locales, default locale, fallbacks). */
export async function updateTeamSettings(tx: Tx, teamId: string, next: Partial<Pick<TeamRow, 'locales' | 'defaultLocale' | 'fallbacks'>>): Promise<void> {
  return await useClient(tx, () => {
    tx.update(teams).set(next).where(eq(teams.id, teamId)).run()
  })
}

/** Stores a content index definition and bumps `indexGeneration`; the new generation, or undefined for an unknown team. */
export async function storeContentIndex(tx: Tx, teamId: string, definition: unknown): Promise<number | undefined> {
  return await useClient(tx, () => tx.update(teams)
    .set({ contentIndex: definition, indexGeneration: sql`${teams.indexGeneration} + 1` })
    .where(and(eq(teams.id, teamId)))
    .returning({ indexGeneration: teams.indexGeneration })
    .get()?.indexGeneration)
}

/** Sets a team's feature flags; false for an unknown team. */
export async function updateTeamFeatures(conn: Conn, teamId: string, value: { history: boolean; snapshots: boolean }): Promise<boolean> {
  return await useClient(conn, () => conn.update(teams).set({ features: value }).where(eq(teams.id, teamId)).returning({ id: teams.id }).all().length > 0)
}

/** The memberships of a user, by team id. */
export async function membershipsOf(conn: Conn, userId: string): Promise<{ teamId: string; capabilities: string[] }[]> {
  return await useClient(conn, () => conn.select({ teamId: memberships.teamId, capabilities: memberships.capabilities }).from(memberships)
    .where(eq(memberships.userId, userId)).orderBy(memberships.teamId).all())
}
