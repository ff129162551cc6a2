/**
 * Teams, their content types and memberships: the named operations core/teams/ (and every write
 * that checks a team's locales or a document's content type) runs on the store.
 */
import { and, eq, ne, sql } from 'drizzle-orm'
import { useClient, type SqliteConn as Conn, type SqliteTx as Tx } from '../client'
import { byDialect } from '../dialect'
import type { PgTxHandle } from '../pg/handle'
import * as pg from '../pg/queries/teams'
import { contentTypes, documents, memberships, teams, type TeamRow } from '../schema'
import { nextChangeVector, raw } from '../store'

export type ContentTypeRow = typeof contentTypes.$inferSelect
/** What a new team is created with. */
export type NewTeam = Pick<TeamRow, 'id' | 'workspaceId' | 'locales' | 'defaultLocale' | 'createdAt'>

/** Whether the database holds any team (the demo seed's "empty", the api's first-run warning). */
async function hasAnyTeamOnSqlite(conn: Conn): Promise<boolean> {
  return await useClient(conn, () => raw(conn).query('SELECT 1 FROM teams LIMIT 1').get() !== null)
}

/** A team, or null. Read on every write and publish: a cached bun:sqlite statement (see db/store.ts). */
async function getTeamOnSqlite(conn: Conn, teamId: string): Promise<TeamRow | null> {
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
async function teamDefaultLocaleOnSqlite(conn: Conn, teamId: string): Promise<string | null> {
  return await useClient(conn, (c) => (c.query('SELECT default_locale FROM teams WHERE id = ?').get(teamId) as { default_locale: string } | null)?.default_locale ?? null)
}

/** A content type of the team, or null. */
async function getContentTypeOnSqlite(conn: Conn, teamId: string, name: string): Promise<ContentTypeRow | null> {
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
async function listContentTypesOnSqlite(conn: Conn, teamId: string): Promise<ContentTypeRow[]> {
  return await useClient(conn, () => conn.select().from(contentTypes).where(eq(contentTypes.teamId, teamId)).orderBy(contentTypes.name).all())
}

/** Creates or replaces a content type row. */
async function upsertContentTypeOnSqlite(tx: Conn, values: ContentTypeRow): Promise<void> {
  return await useClient(tx, () => {
    tx.insert(contentTypes).values(values).onConflictDoUpdate({ target: [contentTypes.teamId, contentTypes.name], set: values }).run()
  })
}

/**
 * Moves every document of content type `name` (siblings too, activity documents not) to
 * `collection`, each with a new change vector.
 */
async function moveContentTypeDocumentsOnSqlite(tx: Conn, teamId: string, name: string, collection: string): Promise<void> {
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
async function updateTeamSettingsOnSqlite(tx: Tx, teamId: string, next: Partial<Pick<TeamRow, 'locales' | 'defaultLocale' | 'fallbacks'>>): Promise<void> {
  return await useClient(tx, () => {
    tx.update(teams).set(next).where(eq(teams.id, teamId)).run()
  })
}

/** Stores a content index definition and bumps `indexGeneration`; the new generation, or undefined for an unknown team. */
async function storeContentIndexOnSqlite(tx: Tx, teamId: string, definition: unknown): Promise<number | undefined> {
  return await useClient(tx, () => tx.update(teams)
    .set({ contentIndex: definition, indexGeneration: sql`${teams.indexGeneration} + 1` })
    .where(and(eq(teams.id, teamId)))
    .returning({ indexGeneration: teams.indexGeneration })
    .get()?.indexGeneration)
}

/** Sets a team's feature flags; false for an unknown team. */
async function updateTeamFeaturesOnSqlite(conn: Conn, teamId: string, value: { history: boolean; snapshots: boolean }): Promise<boolean> {
  return await useClient(conn, () => conn.update(teams).set({ features: value }).where(eq(teams.id, teamId)).returning({ id: teams.id }).all().length > 0)
}

/** Every team's id, in byte order. */
async function teamIdsOnSqlite(conn: Conn): Promise<string[]> {
  return await useClient(conn, () => conn.select({ id: teams.id }).from(teams).orderBy(teams.id).all().map((r) => r.id))
}

/** Creates a team (its other columns take their defaults: no fallbacks, no content index, both features on). */
async function insertTeamOnSqlite(tx: Conn, row: NewTeam): Promise<void> {
  return await useClient(tx, () => {
    tx.insert(teams).values(row).run()
  })
}

/** Sets a team's workspace id. */
async function setTeamWorkspaceOnSqlite(tx: Conn, teamId: string, workspaceId: string): Promise<void> {
  return await useClient(tx, () => {
    tx.update(teams).set({ workspaceId }).where(eq(teams.id, teamId)).run()
  })
}

/**
 * Makes seeds (cli/seed.ts) run one at a time, until the caller's transaction ends. On SQLite the
 * seed's BEGIN IMMEDIATE holds the database's one write lock already: nothing to take.
 */
async function holdSeedLockOnSqlite(_tx: Conn): Promise<void> {}

/** The memberships of a user, by team id. */
async function membershipsOfOnSqlite(conn: Conn, userId: string): Promise<{ teamId: string; capabilities: string[] }[]> {
  return await useClient(conn, () => conn.select({ teamId: memberships.teamId, capabilities: memberships.capabilities }).from(memberships)
    .where(eq(memberships.userId, userId)).orderBy(memberships.teamId).all())
}

export const hasAnyTeam = byDialect(hasAnyTeamOnSqlite, pg.hasAnyTeam)
export const getTeam = byDialect(getTeamOnSqlite, pg.getTeam)
export const teamDefaultLocale = byDialect(teamDefaultLocaleOnSqlite, pg.teamDefaultLocale)
export const getContentType = byDialect(getContentTypeOnSqlite, pg.getContentType)
export const listContentTypes = byDialect(listContentTypesOnSqlite, pg.listContentTypes)
export const upsertContentType = byDialect(upsertContentTypeOnSqlite, pg.upsertContentType)
export const moveContentTypeDocuments = byDialect(moveContentTypeDocumentsOnSqlite, pg.moveContentTypeDocuments)
export const storeContentIndex = byDialect(storeContentIndexOnSqlite, pg.storeContentIndex)
export const updateTeamFeatures = byDialect(updateTeamFeaturesOnSqlite, pg.updateTeamFeatures)
export const membershipsOf = byDialect(membershipsOfOnSqlite, pg.membershipsOf)
export const teamIds = byDialect(teamIdsOnSqlite, pg.teamIds)
export const insertTeam = byDialect(insertTeamOnSqlite, pg.insertTeam)
export const setTeamWorkspace = byDialect(setTeamWorkspaceOnSqlite, pg.setTeamWorkspace)
export const holdSeedLock = byDialect(holdSeedLockOnSqlite, pg.holdSeedLock)

const updateTeamSettingsOf = byDialect(updateTeamSettingsOnSqlite, pg.updateTeamSettings)

/** Sets a team's locale settings (any of locales, default locale, fallbacks); nothing to set writes nothing, on either dialect. */
export async function updateTeamSettings(tx: Tx | PgTxHandle, teamId: string, next: Partial<Pick<TeamRow, 'locales' | 'defaultLocale' | 'fallbacks'>>): Promise<void> {
  if (Object.values(next).every((v) => v === undefined)) return
  await updateTeamSettingsOf(tx, teamId, next)
}
