/**
 * What recording an event reads and writes (core/events/record.ts): the page tree its URLs are
 * computed from, the webhooks subscribed to it, its outbox rows, and the site changes the
 * dispatcher coalesces.
 */
import { useClient, type SqliteConn as Conn, type SqliteTx as Tx } from '../client'
import { byDialect } from '../dialect'
import type { PgTxHandle } from '../pg/handle'
import { teamPageRows } from '../pg/queries/page-tree'
import * as pg from '../pg/queries/events'
import { insertEvent, type NewEvent } from '../outbox/insert-event'
import { siteChanges } from '../schema'

/**
 * Live pages (of a type with URLs) whose parent is ?2, at most ?3. The expression and the `kind`
 * term are those of the partial index `documents_page_parent` (db/schema.ts), which is what
 * makes this a short index search. A page is told by its content type, as the event's own
 * document is: a collection may hold several types, with and without URLs.
 */
export const LIVE_CHILDREN_SQL = `SELECT id, json_extract(body, '$.contentType') AS content_type, body, published, deleted_at FROM documents
  WHERE team_id = ?1 AND kind = 'canonical' AND json_extract(body, '$.fields.parent') = ?2 AND published = 1 AND deleted_at IS NULL
    AND json_extract(body, '$.contentType') IN (SELECT name FROM content_types WHERE team_id = ?1 AND urls = 1)
  LIMIT ?3`

/** A canonical as the page tree needs it. */
export type PageRow = { id: string; content_type: string | null; body: string; published: number; deleted_at: string | null }

/**
 * The team's page tree, read one indexed lookup at a time while the URL rules walk it
 * (core/events/urls.ts, pure and synchronous): the content types with URLs are read here, the
 * readers run on the caller's transaction, which holds the connection (so they are used only
 * inside it, before it ends).
 */
export interface PageRows {
  withUrls: Set<string>
  canonical(id: string): PageRow | null
  liveChildren(id: string, limit: number): PageRow[]
}

/** Opens `PageRows` for `teamId` inside transaction `tx`. */
async function openPageRowsOnSqlite(tx: Tx, teamId: string): Promise<PageRows> {
  return await useClient(tx, (c) => {
    const withUrls = new Set(
      c.query<{ name: string }, [string]>('SELECT name FROM content_types WHERE team_id = ? AND urls = 1').all(teamId).map((r) => r.name),
    )
    const canonical = c.query<PageRow, [string, string]>(
      `SELECT id, json_extract(body, '$.contentType') AS content_type, body, published, deleted_at FROM documents WHERE team_id = ? AND id = ? AND kind = 'canonical'`,
    )
    const children = c.query<PageRow, [string, string, number]>(LIVE_CHILDREN_SQL)
    return { withUrls, canonical: (id) => canonical.get(teamId, id), liveChildren: (id, limit) => children.all(teamId, id, limit) }
  })
}

/** The webhooks of the team subscribed to `eventType`. Runs on every publish: a cached statement (db/store.ts). */
async function subscribedWebhooksOnSqlite(conn: Conn, teamId: string, eventType: string): Promise<{ id: string }[]> {
  return await useClient(conn, (c) => c
    .query<{ id: string; events: string }, [string]>('SELECT id, events FROM webhooks WHERE team_id = ?')
    .all(teamId)
    .filter((w) => (JSON.parse(w.events) as string[]).includes(eventType)))
}

/** Stores an event and its outbox rows in the caller's transaction (db/outbox/insert-event.ts). */
async function storeEventOnSqlite(conn: Conn, e: NewEvent): Promise<number> {
  return await useClient(conn, (c) => insertEvent(c, e))
}

/** A `site_changes` row: a team setting the site can see changed. */
async function insertSiteChangeOnSqlite(tx: Tx, change: { teamId: string; status: 'template' | 'localization' | 'locales' | 'index'; userId: string | null }, at: number): Promise<void> {
  return await useClient(tx, () => {
    tx.insert(siteChanges).values({ teamId: change.teamId, status: change.status, userId: change.userId, occurredAt: at }).run()
  })
}

export const subscribedWebhooks = byDialect(subscribedWebhooksOnSqlite, pg.subscribedWebhooks)
export const storeEvent = byDialect(storeEventOnSqlite, pg.storeEvent)
export const insertSiteChange = byDialect(insertSiteChangeOnSqlite, pg.insertSiteChange)

/**
 * Opens `PageRows` for `teamId` inside transaction `tx`. PostgreSQL cannot answer the walk's
 * synchronous readers: its team's canonicals are read first, in one query inside `tx`, and
 * the same readers then answer from them (children by id, as db/pg/queries/events.ts's do).
 */
export async function openPageRows(tx: Tx | PgTxHandle, teamId: string): Promise<PageRows> {
  if (tx.engine === 'sqlite') return await openPageRowsOnSqlite(tx, teamId)
  const rows = await teamPageRows(tx.sql, teamId)
  const withUrls = new Set(rows.withUrls)
  const byId = new Map(rows.canonicals.map((r) => [r.id, r]))
  const parentOf = (r: PageRow) => (JSON.parse(r.body) as { fields?: { parent?: unknown } }).fields?.parent
  const live = rows.canonicals
    .filter((r) => r.published === 1 && r.deleted_at === null && r.content_type !== null && withUrls.has(r.content_type))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return {
    withUrls,
    canonical: (id) => byId.get(id) ?? null,
    liveChildren: (id, limit) => live.filter((r) => parentOf(r) === id).slice(0, limit),
  }
}
