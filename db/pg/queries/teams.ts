/**
 * Teams, their content types and memberships on PostgreSQL: the async twins of
 * db/queries/teams.ts, same names, same answers, on a Bun.sql client (the pool, or the client of
 * the caller's transaction). JSON columns are read as their text (`::text`) and parsed, as SQLite
 * gives them; text columns compare and sort by bytes (COLLATE "C", migration 0001), as on SQLite.
 */
import type { SQL } from 'bun'
import type { ContentTypeRow, NewTeam } from '../../queries/teams'
import type { TeamRow } from '../../schema'
import { nextChangeVector } from '../store/change-vector'

export type { ContentTypeRow } from '../../queries/teams'

/** Whether the database holds any team. */
export async function hasAnyTeam(sql: SQL): Promise<boolean> {
  return (await sql`SELECT 1 FROM teams LIMIT 1`).length > 0
}

/** A team, or null. */
export async function getTeam(sql: SQL, teamId: string): Promise<TeamRow | null> {
  const [r] = await sql`SELECT id, workspace_id, locales::text AS locales, default_locale, fallbacks::text AS fallbacks,
      content_index::text AS content_index, index_generation, indexed_generation, features::text AS features, created_at
    FROM teams WHERE id = ${teamId}`
  if (!r) return null
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    locales: JSON.parse(r.locales),
    defaultLocale: r.default_locale,
    fallbacks: JSON.parse(r.fallbacks),
    contentIndex: r.content_index == null ? null : JSON.parse(r.content_index),
    indexGeneration: r.index_generation,
    indexedGeneration: r.indexed_generation,
    features: JSON.parse(r.features),
    createdAt: r.created_at,
  }
}

/** A team's default locale, or null for an unknown team. */
export async function teamDefaultLocale(sql: SQL, teamId: string): Promise<string | null> {
  const [r] = await sql`SELECT default_locale FROM teams WHERE id = ${teamId}`
  return r?.default_locale ?? null
}

const contentTypeRow = (r: { team_id: string; name: string; collection: string; urls: boolean; definition: string }): ContentTypeRow =>
  ({ teamId: r.team_id, name: r.name, collection: r.collection, urls: r.urls, definition: JSON.parse(r.definition) })

/** A content type of the team, or null. */
export async function getContentType(sql: SQL, teamId: string, name: string): Promise<ContentTypeRow | null> {
  const [r] = await sql`SELECT team_id, name, collection, urls, definition::text AS definition FROM content_types WHERE team_id = ${teamId} AND name = ${name}`
  return r ? contentTypeRow(r) : null
}

/** The team's content types by name (byte order, as on SQLite). */
export async function listContentTypes(sql: SQL, teamId: string): Promise<ContentTypeRow[]> {
  const rows = await sql`SELECT team_id, name, collection, urls, definition::text AS definition FROM content_types WHERE team_id = ${teamId} ORDER BY name`
  return [...rows].map(contentTypeRow)
}

/** Creates or replaces a content type row. */
export async function upsertContentType(sql: SQL, values: ContentTypeRow): Promise<void> {
  const definition = JSON.stringify(values.definition)
  await sql`INSERT INTO content_types (team_id, name, collection, urls, definition)
    VALUES (${values.teamId}, ${values.name}, ${values.collection}, ${values.urls}, ${definition}::text::json)
    ON CONFLICT (team_id, name) DO UPDATE SET collection = EXCLUDED.collection, urls = EXCLUDED.urls, definition = EXCLUDED.definition`
}

/**
 * Moves every document of content type `name` (siblings too, activity documents not) to
 * `collection`, each with a new change vector, in the caller's transaction.
 *
 * Locks: on SQLite the read and the writes ran under the one write lock. Here the change vector
 * counter is taken first (its row lock serialises every writer that takes a change vector,
 * docs/postgresql.md "Change vectors: a row, not a sequence"), and only then are the documents
 * read `FOR UPDATE`, so none of them changes between that read and its update (a row deleted
 * meanwhile is not found). Locking the documents before the counter, as the SQLite order of
 * statements would, deadlocks with a writer that took the counter and then saves one of them
 * (test/db/pg/queries/teams.test.ts). A first read without locks keeps a move of no document from
 * taking a number, as on SQLite. Rows are moved in id order, the order SQLite reads them in by
 * its `(team_id, id)` key: the same ids get the same etags (the test checks it).
 */
export async function moveContentTypeDocuments(tx: SQL, teamId: string, name: string, collection: string): Promise<void> {
  const find = (lock: string) => tx.unsafe(
    `SELECT id FROM documents WHERE team_id = $1 AND kind <> 'activity' AND nul_safe_json(body) ->> 'contentType' = $2 ORDER BY id ${lock}`, [teamId, name])
  if ((await find('LIMIT 1')).length === 0) return
  let changeVector: string | null = await nextChangeVector(tx)
  const updatedAt = new Date().toISOString()
  for (const { id } of await find('FOR UPDATE')) {
    changeVector ??= await nextChangeVector(tx)
    await tx`UPDATE documents SET collection = ${collection}, change_vector = ${changeVector}, updated_at = ${updatedAt} WHERE team_id = ${teamId} AND id = ${id}`
    changeVector = null
  }
}

/** Sets a team's locale settings (any of locales, default locale, fallbacks). */
export async function updateTeamSettings(tx: SQL, teamId: string, next: Partial<Pick<TeamRow, 'locales' | 'defaultLocale' | 'fallbacks'>>): Promise<void> {
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v))
  // A key left out (undefined) keeps the stored value, as drizzle's `set` leaves it out on SQLite.
  await tx`UPDATE teams SET
      locales = COALESCE(${json(next.locales)}::text::json, locales),
      default_locale = COALESCE(${next.defaultLocale ?? null}::text, default_locale),
      fallbacks = COALESCE(${json(next.fallbacks)}::text::json, fallbacks)
    WHERE id = ${teamId}`
}

/** Stores a content index definition and bumps `indexGeneration`; the new generation, or undefined for an unknown team. */
export async function storeContentIndex(tx: SQL, teamId: string, definition: unknown): Promise<number | undefined> {
  // SQLite's json column stores JSON.stringify(definition); `null` stores SQL NULL there (drizzle writes null as NULL).
  const text = definition === null || definition === undefined ? null : JSON.stringify(definition)
  const [r] = await tx`UPDATE teams SET content_index = ${text}::text::json, index_generation = index_generation + 1
    WHERE id = ${teamId} RETURNING index_generation`
  return r?.index_generation
}

/** Sets a team's feature flags; false for an unknown team. */
export async function updateTeamFeatures(sql: SQL, teamId: string, value: { history: boolean; snapshots: boolean }): Promise<boolean> {
  return (await sql`UPDATE teams SET features = ${JSON.stringify(value)}::text::json WHERE id = ${teamId} RETURNING id`).length > 0
}

/** The memberships of a user, by team id (byte order, as on SQLite). */
export async function membershipsOf(sql: SQL, userId: string): Promise<{ teamId: string; capabilities: string[] }[]> {
  const rows = await sql`SELECT team_id, capabilities::text AS capabilities FROM memberships WHERE user_id = ${userId} ORDER BY team_id`
  return [...rows].map((r: { team_id: string; capabilities: string }) => ({ teamId: r.team_id, capabilities: JSON.parse(r.capabilities) }))
}

/** Every team's id, in byte order (as on SQLite). */
export async function teamIds(sql: SQL): Promise<string[]> {
  return [...await sql`SELECT id FROM teams ORDER BY id`].map((r: { id: string }) => r.id)
}

/** Creates a team (its other columns take their defaults). */
export async function insertTeam(tx: SQL, row: NewTeam): Promise<void> {
  await tx`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at)
    VALUES (${row.id}, ${row.workspaceId}, ${JSON.stringify(row.locales)}::text::json, ${row.defaultLocale}, ${row.createdAt})`
}

/** Sets a team's workspace id. */
export async function setTeamWorkspace(tx: SQL, teamId: string, workspaceId: string): Promise<void> {
  await tx`UPDATE teams SET workspace_id = ${workspaceId} WHERE id = ${teamId}`
}

/** The advisory lock key of seeds ('seed' in ASCII); the migration lock's is another (db/pg/migrate.ts). */
const SEED_LOCK_KEY = 0x73656564n

/**
 * Makes seeds run one at a time, as SQLite's write lock does, until the caller's transaction ends:
 * a transaction-level advisory lock. Two `bun start` on an empty database then seed once, the
 * second finding the first's team (READ COMMITTED: its statements after the lock see the first's
 * commit), instead of both inserting the team and one failing on its key.
 */
export async function holdSeedLock(tx: SQL): Promise<void> {
  await tx.unsafe(`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`)
}
