/**
 * Test sends, the delivery log and redelivery (contract.md "Webhooks"). A test send is stored
 * like any delivery (an outbox row and an attempt with trigger `test`), so it shows in the log
 * and can be redelivered.
 */
import type { Db } from '../../db/client'
import type { OutboxRow } from '../../db/schema'
import { deliveryLogPage, deliveryOf, requeueDelivery, storeTestDelivery } from '../../db/queries/webhooks'
import { getTeam } from '../teams/service'
import { deliverOnce } from '../delivery/deliver'
import { AppError, badRequest, notFound } from '../errors'
import { pageSizeParam } from '../query'
import type { EventPayload, EventType } from './model'
import { EVENT_TYPES } from './model'
import { getWebhookRow } from './service'

/** The sample event of spec.md's test endpoint: documentId `webhook-test`. */
export function samplePayload(team: { id: string; workspaceId: string; defaultLocale: string }, eventType: EventType, userId: string): EventPayload {
  const site = eventType === 'site.changed'
  const published = eventType === 'content.published'
  const path = '/webhook-test'
  return {
    v: 2, eventType, eventId: Bun.randomUUIDv7(), occurredAt: new Date().toISOString(), teamId: team.id,
    workspaceId: team.workspaceId, userId, documentId: 'webhook-test', collection: site ? null : 'webhook-test',
    locales: published ? [team.defaultLocale] : [], status: site ? 'template' : published ? 'published' : 'archived',
    url: site ? '' : path, urls: published ? { [team.defaultLocale]: path } : {}, previousUrls: eventType === 'content.unpublished' ? [path] : [],
    scope: site ? 'site' : 'document',
  }
}

/**
 * The longest a test send waits for its receiver: it answers synchronously, and an HTTP answer can
 * wait at most Bun's longest idle timeout, 255 s (api/http/serve.ts `idleTimeoutSeconds`).
 */
export const MAX_TEST_SEND_MS = 250_000

/** How long a test send waits: WEBHOOK_TIMEOUT_MS, as the dispatcher, but at most MAX_TEST_SEND_MS. */
export const testSendTimeoutMs = (webhookTimeoutMs: number) => Math.min(webhookTimeoutMs, MAX_TEST_SEND_MS)

export async function testWebhook(
  db: Db,
  input: { teamId: string; id: string; userId: string; eventType?: string },
  opts: { timeoutMs: number; allowPrivateTargets: boolean; fetch?: typeof fetch; log?: { warn(fields: object, msg: string): void } },
) {
  const webhook = await getWebhookRow(db, input.teamId, input.id)
  if (input.eventType !== undefined && !(EVENT_TYPES as readonly string[]).includes(input.eventType)) {
    throw badRequest('invalid_event_type', `eventType must be one of ${EVENT_TYPES.join(', ')}.`)
  }
  const eventType = (input.eventType ?? webhook.events[0] ?? 'content.published') as EventType
  const team = (await getTeam(db, input.teamId))!
  const payload = samplePayload(team, eventType, input.userId)
  const bytes = JSON.stringify(payload)
  const startedAt = Date.now()
  const result = await deliverOnce(
    { webhook, payload: bytes, eventType, eventId: payload.eventId },
    { fetch: opts.fetch ?? fetch, timeoutMs: testSendTimeoutMs(opts.timeoutMs), allowPrivateTargets: opts.allowPrivateTargets },
  )
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
  // The caller is told only that the target is not a reachable public address; why, for operators.
  if (result.detail) opts.log?.warn({ webhookId: webhook.id, eventId: payload.eventId, error: result.error, detail: result.detail }, 'webhook test send refused')
  // Deleted while the test was on the wire: the answer is still the caller's, there is no log to keep it in.
  await storeTestDelivery(db, {
    eventId: payload.eventId, webhookId: webhook.id, teamId: input.teamId, eventType, bytes, delivered, startedAt, result,
  })
  return {
    delivered, status: result.statusCode, durationMs: result.durationMs, responseBody: result.responseBody,
    ...(result.error ? { error: result.error } : {}),
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** Events a log page holds by default. */
const LOG_PAGE = 50

/** The `limit` query value: at least 1, capped at 100 (as versions' `pageSize`); unset or empty is 50. */
export const parseLimit = (text: string | undefined) => pageSizeParam(text, { name: 'limit', fallback: LOG_PAGE, max: 100, code: 'invalid_body' })

export interface DeliveryPage {
  /** Events per page (default 50). */
  limit?: number
  /** The eventId of the last event of the previous page. */
  before?: string
  status?: OutboxRow['status']
}

/**
 * One page of the delivery log of one webhook, newest first, each event with its attempts in
 * order (db/outbox/list-deliveries.ts: a page costs the same however many deliveries the file holds).
 */
export async function listDeliveries(db: Db, teamId: string, id: string, page: DeliveryPage = {}) {
  await getWebhookRow(db, teamId, id)
  let beforeSeq: number | undefined
  if (page.before !== undefined) {
    const from = await deliveryOf(db, id, page.before)
    if (!from) throw notFound('`before` names no delivery of this webhook (never made, or removed by retention).')
    beforeSeq = from.seq
  }
  const rows = await deliveryLogPage(db, { webhookId: id, limit: page.limit ?? LOG_PAGE, status: page.status, beforeSeq })
  return rows.map((r) => ({
    eventId: r.eventId, eventType: r.eventType as EventType, status: r.status, createdAt: new Date(r.createdAt).toISOString(),
    attempts: r.attempts.map((a) => ({
      attempt: a.attempt, trigger: a.trigger, at: new Date(a.startedAt).toISOString(), statusCode: a.statusCode,
      error: a.error, durationMs: a.durationMs, nextAttemptAt: iso(a.nextAttemptAt), responseBody: a.responseBody ?? '',
    })),
  }))
}

/**
 * Sends an event again with the same eventId and the same bytes: the outbox row goes back to
 * pending with a fresh budget of attempts, logged as `manual`. A row in flight is refused (409).
 */
export async function redeliver(db: Db, teamId: string, id: string, eventId: string, now = Date.now()) {
  await getWebhookRow(db, teamId, id)
  const done = await requeueDelivery(db, id, eventId, now)
  if (done.outcome === 'missing') throw notFound('No delivery of this webhook has that event id (never made, or removed by retention).')
  if (done.outcome === 'in-flight') {
    throw new AppError(409, 'delivery_in_progress', 'This event is being sent, or is about to be; try again when the attempt is over.')
  }
  return { eventId, eventType: done.row.eventType as EventType, status: 'pending' as const }
}
