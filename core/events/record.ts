/**
 * Builds webhook events and writes them to the outbox inside the caller's transaction
 * (style.md "Outbox and leases"): an event exists exactly when its change does.
 * The payload is serialised once, so every retry sends identical bytes with the same eventId.
 */
import type { Conn, Tx } from '../../db/client'
import type { DocumentRow } from '../../db/schema'
import { insertSiteChange, openPageRows, storeEvent, subscribedWebhooks, type PageRow } from '../../db/queries/events'
import { getContentType, getTeam } from '../teams/service'
import type { EventPayload, EventType } from '../webhooks/model'
import { computeUrls, pagesFrom, toPageNode, type PageNode, type PageSource } from './urls'
import { asDocument, changedLocales, fieldsChanged } from '../documents/document'

export interface PublishedChange {
  teamId: string
  before: DocumentRow | null
  after: DocumentRow
  userId: string | null
  locales: string[]
}

/** spec.md "Events": a publish (UI, assistant, scheduled, CLI) sends `content.published`. */
export async function recordPublished(tx: Tx, change: PublishedChange): Promise<void> {
  const before = change.before?.published && !change.before.deletedAt ? change.before : null
  await documentEvent(tx, {
    eventType: 'content.published', status: 'published', teamId: change.teamId, userId: change.userId,
    row: change.after, before, after: change.after, locales: change.locales,
  })
}

export interface UnpublishedChange {
  teamId: string
  before: DocumentRow
  status: 'archived' | 'deleted'
  userId: string | null
}

/** spec.md "Events": archiving or deleting a published document sends `content.unpublished`. */
export async function recordUnpublished(tx: Tx, change: UnpublishedChange): Promise<void> {
  await documentEvent(tx, {
    eventType: 'content.unpublished', status: change.status, teamId: change.teamId, userId: change.userId,
    row: change.before, before: change.before, after: null, locales: [],
  })
}

/**
 * spec.md "Events": a published page changed in place without a publish (a canonical written
 * by `POST /content`, e.g. a new slug or parent) also sends `content.published`. Nothing is
 * sent when the live content did not change.
 */
export async function recordChangedInPlace(tx: Tx, change: { teamId: string; before: DocumentRow | null; after: DocumentRow; userId: string }): Promise<void> {
  const { before, after } = change
  if (!before?.published || before.deletedAt || !after.published) return
  const b = asDocument(before.body)
  const a = asDocument(after.body)
  const changed = changedLocales(b, a)
  // A new content type alone moves its URLs too (a type without URLs serves no page) and its collection.
  if (changed.length === 0 && !fieldsChanged(b, a) && b.contentType === a.contentType) return
  // A change of non-localizable fields (or of the type) touches every locale the document is served in.
  const locales = changed.length > 0 ? changed : Object.keys(a.locales).sort()
  await documentEvent(tx, { eventType: 'content.published', status: 'published', teamId: change.teamId, userId: change.userId, row: after, before, after, locales })
}

interface DocumentEvent {
  eventType: EventType
  status: EventPayload['status']
  teamId: string
  userId: string | null
  row: DocumentRow
  before: DocumentRow | null
  after: DocumentRow | null
  locales: string[]
}

async function documentEvent(tx: Tx, e: DocumentEvent): Promise<void> {
  // Cheap exit first: no subscribed webhook, no URL work.
  const targets = await subscribedWebhooks(tx, e.teamId, e.eventType)
  if (targets.length === 0) return
  const team = await getTeam(tx, e.teamId)
  if (!team) return
  // Before and after each by its own content type: a page that became a type without URLs
  // (or the other way round) lost (or gained) its paths.
  const hasUrls = async (row: DocumentRow | null) => row !== null && ((await getContentType(tx, e.teamId, String(row.body.contentType)))?.urls ?? false)
  const urlsBefore = await hasUrls(e.before)
  const urlsAfter = await hasUrls(e.after)
  const urls = computeUrls({
    documentId: e.row.id,
    urlsEnabled: urlsBefore || urlsAfter,
    locales: team.locales,
    defaultLocale: team.defaultLocale,
    before: e.before && (urlsBefore ? toPageNode(e.row.id, e.before.body, true) : null),
    after: e.after && toPageNode(e.row.id, e.after.body, urlsAfter),
    others: urlsBefore || urlsAfter ? await pageSource(tx, e.teamId) : pagesFrom(new Map()),
  })
  await enqueueEvent(tx, {
    v: 2, eventType: e.eventType, eventId: Bun.randomUUIDv7(), occurredAt: new Date().toISOString(),
    teamId: e.teamId, workspaceId: team.workspaceId, userId: e.userId, documentId: e.row.id,
    // Sorted whatever the caller's order (a publish listed the draft's key order, an in-place
    // edit its sorted changes), so one document's events name locales alike. Only the team's:
    // content kept in a locale removed from the team is served in no language.
    collection: e.row.collection, locales: e.locales.filter((l) => team.locales.includes(l)).sort(), status: e.status, ...urls,
  }, Date.now(), targets)
}

/**
 * The team's page tree as the URL rules walk it (urls.ts `PageSource`), read from the database
 * one indexed lookup at a time, so an event costs the pages it touches, not the team's size
 * (the whole tree was read, and parsed, under the write lock on every page publish).
 * A soft-deleted page stays a page that serves nothing, so the pages below it have no URL (as
 * below an archived page) rather than an unreadable chain that would make every event
 * `scope: "site"`. So does any other document of the team that is not a live page (a draft never
 * published, a type without URLs), and an id naming no document: nothing is served below a
 * parent that is not there (it was `scope: "site"`, a whole-site purge on every event of such a
 * page and the pages below it). Only a cycle or a stored value no rule reads is unreliable.
 */
async function pageSource(tx: Tx, teamId: string): Promise<PageSource> {
  const rows = await openPageRows(tx, teamId)
  const nodes = new Map<string, PageNode>()
  const servesNothing = (id: string): PageNode => ({ id, parent: null, slugs: {}, published: false })
  // By its content type (not the collection stored with the row, which several types may share);
  // only a page's body is parsed.
  const toNode = (r: PageRow): PageNode =>
    r.content_type !== null && rows.withUrls.has(r.content_type)
      ? toPageNode(r.id, JSON.parse(r.body) as Record<string, unknown>, r.published === 1 && r.deleted_at === null)
      : servesNothing(r.id)
  return {
    get(id) {
      let node = nodes.get(id)
      if (node) return node
      const row = rows.canonical(id)
      node = row ? toNode(row) : servesNothing(id)
      nodes.set(id, node)
      return node
    },
    liveChildrenOf(id, limit) {
      const found: PageNode[] = []
      for (const row of rows.liveChildren(id, limit)) {
        const node = toNode(row)
        nodes.set(node.id, node)
        found.push(node)
      }
      return found
    },
  }
}

/**
 * The largest body an event is sent with. A moved subtree of 250 pages in 64 locales with long
 * paths could run to megabytes, past a receiver's body limit (a final 413: the event lost). Past
 * this the paths are left out and `scope` is `site` (spec.md: URLs that cannot be given reliably),
 * so the receiver refreshes everything: `previousUrls` first, then `urls` too.
 */
export const MAX_EVENT_BYTES = 1024 * 1024

/** The payload's bytes, within MAX_EVENT_BYTES (see there). */
export function serialiseEvent(payload: EventPayload): string {
  const bytes = JSON.stringify(payload)
  if (Buffer.byteLength(bytes) <= MAX_EVENT_BYTES) return bytes
  const withoutPrevious = JSON.stringify({ ...payload, previousUrls: [], scope: 'site' })
  if (Buffer.byteLength(withoutPrevious) <= MAX_EVENT_BYTES) return withoutPrevious
  return JSON.stringify({ ...payload, urls: {}, previousUrls: [], scope: 'site' })
}

/** Stores the event's serialised bytes once and one outbox row per subscribed webhook pointing at them (db/outbox/insert-event.ts). */
export async function enqueueEvent(
  conn: Conn,
  payload: EventPayload,
  at = Date.now(),
  targets?: { id: string }[],
): Promise<number> {
  targets ??= await subscribedWebhooks(conn, payload.teamId, payload.eventType)
  if (targets.length === 0) return 0
  return await storeEvent(conn, {
    eventId: payload.eventId, teamId: payload.teamId, eventType: payload.eventType, bytes: serialiseEvent(payload),
    webhookIds: targets.map((w) => w.id), at,
  })
}

/**
 * spec.md "Rules for site.changed": a team setting the site can see changed. Only a row is
 * written here; the dispatcher coalesces the rows of a team into one `site.changed`.
 */
export async function recordSiteChange(tx: Tx, change: { teamId: string; status: 'template' | 'localization' | 'locales' | 'index'; userId: string | null }, at = Date.now()): Promise<void> {
  return await insertSiteChange(tx, change, at)
}
