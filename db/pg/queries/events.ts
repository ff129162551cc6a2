/**
 * What recording an event reads and writes on PostgreSQL: the async twins of db/queries/events.ts,
 * on a Bun.sql client (the page tree, the subscribed webhooks, the outbox rows, site changes).
 */
import type { SQL } from 'bun'
import type { NewEvent } from '../../outbox/insert-event'
import type { PageRow } from '../../queries/events'
import { insertEvent } from '../outbox/insert-event'

export type { PageRow } from '../../queries/events'

/**
 * Live pages (of a type with URLs) whose parent is $2, at most $3. The parent's expression and the
 * `kind` term are those of the partial index `documents_page_parent` (db/pg/schema.ts). Every read
 * into a body goes through nul_safe_json: `->` alone fails on a body holding `\u0000` anywhere.
 */
export const LIVE_CHILDREN_SQL = `SELECT id, nul_safe_json(body) ->> 'contentType' AS content_type, body::text AS body, published::int AS published, deleted_at FROM documents
  WHERE team_id = $1 AND kind = 'canonical' AND ((nul_safe_json(body) -> 'fields') ->> 'parent') = $2 AND published AND deleted_at IS NULL
    AND nul_safe_json(body) ->> 'contentType' IN (SELECT name FROM content_types WHERE team_id = $1 AND urls)
  LIMIT $3`

/**
 * The team's page tree, read one indexed lookup at a time. Unlike SQLite's (whose readers run
 * synchronously on the caller's held connection), the readers are async: a PostgreSQL driver
 * cannot answer synchronously, so the URL walk (core/events/urls.ts) has to await them.
 */
export interface PageRows {
  withUrls: Set<string>
  canonical(id: string): Promise<PageRow | null>
  liveChildren(id: string, limit: number): Promise<PageRow[]>
}

/**
 * Opens `PageRows` for `teamId` on `tx` (run it inside the event's transaction, to read the tree
 * that transaction sees). `liveChildren` on SQLite returns rows in its index's rowid order; here
 * they come by id. Either way the caller asks for one more than it can use and takes too many as
 * "scope: site", so only the choice of rows past the limit differs, never the answer.
 */
export async function openPageRows(tx: SQL, teamId: string): Promise<PageRows> {
  const withUrls = new Set([...(await tx`SELECT name FROM content_types WHERE team_id = ${teamId} AND urls`)].map((r: { name: string }) => r.name))
  return {
    withUrls,
    async canonical(id) {
      const [r] = await tx`SELECT id, nul_safe_json(body) ->> 'contentType' AS content_type, body::text AS body, published::int AS published, deleted_at
        FROM documents WHERE team_id = ${teamId} AND id = ${id} AND kind = 'canonical'`
      return (r as PageRow | undefined) ?? null
    },
    async liveChildren(id, limit) {
      const rows = [...(await tx.unsafe(LIVE_CHILDREN_SQL, [teamId, id, limit]))] as PageRow[]
      return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    },
  }
}

/**
 * The webhooks of the team subscribed to `eventType`, with their `events` text as on SQLite.
 * SQLite reads them through `webhooks_team` in rowid (creation) order, which sets the order of an
 * event's outbox rows; here by `created_at`, then id (ids are random UUIDs: the order of two
 * webhooks created in the same millisecond is arbitrary, on SQLite by insertion).
 */
export async function subscribedWebhooks(sql: SQL, teamId: string, eventType: string): Promise<{ id: string }[]> {
  const rows = await sql`SELECT id, events::text AS events FROM webhooks WHERE team_id = ${teamId} ORDER BY created_at, id`
  return [...rows].filter((w: { events: string }) => (JSON.parse(w.events) as string[]).includes(eventType))
}

/** Stores an event and its outbox rows in the caller's transaction (db/pg/outbox/insert-event.ts). */
export async function storeEvent(tx: SQL, e: NewEvent): Promise<number> {
  return await insertEvent(tx, e)
}

/** A `site_changes` row: a team setting the site can see changed. */
export async function insertSiteChange(tx: SQL, change: { teamId: string; status: 'template' | 'localization' | 'locales' | 'index'; userId: string | null }, at: number): Promise<void> {
  await tx`INSERT INTO site_changes (team_id, status, user_id, occurred_at) VALUES (${change.teamId}, ${change.status}, ${change.userId}, ${at})`
}
