/** Webhook management routes of contract.md "Webhooks" (capability ManageWebhooks). */
import { Elysia, t } from 'elysia'
import { authGuard } from '../http/auth-guard'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../http/schemas'
import { blankAsAbsent } from '../../core/query'
import { listDeliveries, parseLimit, redeliver, testWebhook } from '../../core/webhooks/deliveries'
import { registerDeliveryMetrics } from './metrics'
import { DeliveryStatus, DeliveryView, EventTypeSchema, RecoverAccepted, RecoverRequest, RedeliveryAccepted, TestResult, WebhookCreate, WebhookPatch, WebhookRecord, WebhookWithSecret } from '../../core/webhooks/model'
import { recoverFailed } from '../../core/webhooks/recover'
import { createWebhook, deleteWebhook, getWebhookRow, listWebhooks, toRecord, updateWebhook } from '../../core/webhooks/service'

const teamParams = t.Object({ teamId: t.String({ maxLength: 200 }) })
const oneParams = t.Object({ teamId: t.String({ maxLength: 200 }), id: t.String({ maxLength: 200 }) })
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }

export function webhookRoutes(deps: AppDeps) {
  const { db, config, log } = deps
  registerDeliveryMetrics(deps)
  return new Elysia({ name: 'webhooks', detail: { tags: ['webhooks'] } })
    .use(authGuard(db))
    .post(
      '/teams/:teamId/webhooks',
      async ({ params, body, status }) => {
        return status(201, await createWebhook(db, params.teamId, body, config.allowPrivateTargets))
      },
      { requires: ['ManageWebhooks'], params: teamParams, body: WebhookCreate, response: { 201: WebhookWithSecret, ...errors }, detail: { summary: 'Create a webhook; the answer is the only one with the full secret' } },
    )
    .get(
      '/teams/:teamId/webhooks',
      async ({ params }) => {
        return await listWebhooks(db, params.teamId)
      },
      { requires: ['ManageWebhooks'], params: teamParams, response: { 200: t.Array(WebhookRecord), ...errors }, detail: { summary: 'List webhooks (never the secret)' } },
    )
    .get(
      '/teams/:teamId/webhooks/:id',
      async ({ params }) => {
        return toRecord(await getWebhookRow(db, params.teamId, params.id))
      },
      { requires: ['ManageWebhooks'], params: oneParams, response: { 200: WebhookRecord, ...errors }, detail: { summary: 'Read one webhook' } },
    )
    .patch(
      '/teams/:teamId/webhooks/:id',
      async ({ params, body }) => {
        return await updateWebhook(db, params.teamId, params.id, body, config.allowPrivateTargets)
      },
      {
        requires: ['ManageWebhooks'],
        params: oneParams, body: WebhookPatch,
        response: { 200: t.Union([WebhookWithSecret, WebhookRecord], { description: 'The webhook; with the full `secret` once when this request replaced it' }), ...errors },
        detail: { summary: 'Update a webhook; a new secret is answered in full, once' },
      },
    )
    .delete(
      '/teams/:teamId/webhooks/:id',
      async ({ params, status }) => {
        await deleteWebhook(db, params.teamId, params.id)
        return status(204, undefined)
      },
      { requires: ['ManageWebhooks'], params: oneParams, response: { 204: t.Undefined(), ...errors }, detail: { summary: 'Delete a webhook and its pending deliveries' } },
    )
    .post(
      '/teams/:teamId/webhooks/:id/test',
      async ({ params, query, caller }) => {
        return await testWebhook(db, { teamId: params.teamId, id: params.id, userId: caller.userId, eventType: query.eventType },
          { timeoutMs: config.webhookTimeoutMs, allowPrivateTargets: config.allowPrivateTargets, log: deps.log })
      },
      {
        requires: ['ManageWebhooks'],
        transform: blankAsAbsent('eventType'),
        // Any other value is `400 invalid_event_type` (api/http/error-mapping.ts).
        params: oneParams, query: t.Object({ eventType: t.Optional(EventTypeSchema) }, { additionalProperties: true }),
        response: { 200: TestResult, ...errors },
        detail: { summary: 'Send a sample event (documentId `webhook-test`) now and show the answer' },
      },
    )
    .get(
      '/teams/:teamId/webhooks/:id/deliveries',
      async ({ params, query }) => {
        return await listDeliveries(db, params.teamId, params.id, { limit: parseLimit(query.limit), before: query.before || undefined, status: query.status })
      },
      {
        requires: ['ManageWebhooks'],
        params: oneParams,
        transform: blankAsAbsent('status'),
        // `limit` stays text so that each refusal names it (as versions' paging does).
        query: t.Object({
          limit: t.Optional(t.String()),
          before: t.Optional(t.String({ maxLength: 200 })),
          status: t.Optional(DeliveryStatus),
        }, { additionalProperties: true }),
        response: { 200: t.Array(DeliveryView), ...errors },
        detail: {
          summary: 'Delivery log, newest first (50 events a page; `before` and `status` to page and filter)',
          description: 'A `before` that names no delivery of this webhook (never made, or removed by retention) is `404 not_found`.',
          // Listed whole: given parameters replace the generated ones, the path's among them.
          parameters: [
            { in: 'path', name: 'teamId', required: true, schema: { type: 'string', maxLength: 200 } },
            { in: 'path', name: 'id', required: true, schema: { type: 'string', maxLength: 200 } },
            { in: 'query', name: 'limit', description: 'Events per page, capped at 100', schema: { type: 'integer', minimum: 1, default: 50 } },
            { in: 'query', name: 'before', description: 'The `eventId` of the last event of the previous page: the page goes on after it', schema: { type: 'string', maxLength: 200 } },
            { in: 'query', name: 'status', description: 'Only events in this state', schema: { type: 'string', enum: DeliveryStatus.anyOf.map((s) => s.const) } },
          ],
        },
      },
    )
    .post(
      '/teams/:teamId/webhooks/:id/deliveries/:eventId/redeliver',
      async ({ params, status }) => {
        return status(202, await redeliver(db, params.teamId, params.id, params.eventId))
      },
      {
        requires: ['ManageWebhooks'],
        params: t.Object({ teamId: t.String({ maxLength: 200 }), id: t.String({ maxLength: 200 }), eventId: t.String({ maxLength: 200 }) }),
        response: { 202: RedeliveryAccepted, ...errors, 409: ErrorBody },
        detail: {
          summary: 'Send an event again with the same eventId and bytes',
          description: 'A delivery the retention removed (`DELIVERY_LOG_RETENTION_DAYS`) is `404 not_found`, like one never made.',
          'x-responses': { 409: '`{error: "delivery_in_progress", message}`: this event is being sent, or is about to be; try again when the attempt is over' },
        },
      },
    )
    .post(
      '/teams/:teamId/webhooks/:id/recover',
      async ({ params, body, status }) => {
        const answer = await recoverFailed(db, params.teamId, params.id, body)
        log.info({ webhookId: params.id, teamId: params.teamId, queued: answer.queued }, 'failed deliveries queued again by a recover')
        return status(202, answer)
      },
      {
        requires: ['ManageWebhooks'],
        params: oneParams, body: RecoverRequest,
        response: { 202: RecoverAccepted, ...errors },
        detail: {
          summary: 'Send again every event of the window whose delivery failed, oldest first',
          description: 'Each failed delivery of an event that happened from `since` up to `until` (default: now) goes back to pending as a '
            + 'redelivery does: same `eventId` and bytes, a fresh budget of 3 attempts, logged as `manual`. Delivered and pending events '
            + 'and test sends are left alone; a second recover queues none of them twice. `queued` counts what this request queued. '
            + 'There is no limit on the width of the window: it holds only what failed, which retention (`DELIVERY_LOG_RETENTION_DAYS`) bounds.',
          'x-responses': {
            400: '`{error, message}`: `bad_window` for a bound that is not an RFC 3339 timestamp with its offset, a `since` in the future, or an '
              + '`until` not after `since`; `invalid_body` for a missing `since` or an unknown field',
          },
        },
      },
    )
}
