/** Webhook management routes of contract.md "Webhooks" (capability ManageWebhooks). */
import { Elysia, t } from 'elysia'
import { authorize } from '../auth'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../content/model'
import { listDeliveries, redeliver, testWebhook } from './deliveries'
import { registerDeliveryMetrics } from './metrics'
import { DeliveryView, TestResult, WebhookCreate, WebhookPatch, WebhookRecord, WebhookWithSecret } from './model'
import { createWebhook, deleteWebhook, getWebhookRow, listWebhooks, toRecord, updateWebhook } from './service'

const teamParams = t.Object({ teamId: t.String({ maxLength: 200 }) })
const oneParams = t.Object({ teamId: t.String({ maxLength: 200 }), id: t.String({ maxLength: 200 }) })
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }

export function webhookRoutes(deps: AppDeps) {
  const { db, config } = deps
  registerDeliveryMetrics(deps)
  const auth = (authorization: string | undefined, teamId: string) => authorize(db, authorization, teamId, ['ManageWebhooks'])
  return new Elysia({ name: 'webhooks', detail: { tags: ['webhooks'] } })
    .post(
      '/teams/:teamId/webhooks',
      ({ params, body, headers, status }) => {
        auth(headers.authorization, params.teamId)
        return status(201, createWebhook(db, params.teamId, body, config.allowPrivateTargets))
      },
      { params: teamParams, body: WebhookCreate, response: { 201: WebhookWithSecret, ...errors }, detail: { summary: 'Create a webhook; the answer is the only one with the full secret' } },
    )
    .get(
      '/teams/:teamId/webhooks',
      ({ params, headers }) => {
        auth(headers.authorization, params.teamId)
        return listWebhooks(db, params.teamId)
      },
      { params: teamParams, response: { 200: t.Array(WebhookRecord), ...errors }, detail: { summary: 'List webhooks (never the secret)' } },
    )
    .get(
      '/teams/:teamId/webhooks/:id',
      ({ params, headers }) => {
        auth(headers.authorization, params.teamId)
        return toRecord(getWebhookRow(db, params.teamId, params.id))
      },
      { params: oneParams, response: { 200: WebhookRecord, ...errors }, detail: { summary: 'Read one webhook' } },
    )
    .patch(
      '/teams/:teamId/webhooks/:id',
      ({ params, body, headers }) => {
        auth(headers.authorization, params.teamId)
        return updateWebhook(db, params.teamId, params.id, body, config.allowPrivateTargets)
      },
      {
        params: oneParams, body: WebhookPatch,
        response: { 200: t.Union([WebhookWithSecret, WebhookRecord]), ...errors },
        detail: { summary: 'Update a webhook; a new secret is answered in full, once' },
      },
    )
    .delete(
      '/teams/:teamId/webhooks/:id',
      ({ params, headers, status }) => {
        auth(headers.authorization, params.teamId)
        deleteWebhook(db, params.teamId, params.id)
        return status(204, undefined)
      },
      { params: oneParams, response: { 204: t.Undefined(), ...errors }, detail: { summary: 'Delete a webhook and its pending deliveries' } },
    )
    .post(
      '/teams/:teamId/webhooks/:id/test',
      async ({ params, query, headers }) => {
        const caller = auth(headers.authorization, params.teamId)
        return testWebhook(db, { teamId: params.teamId, id: params.id, userId: caller.userId, eventType: query.eventType },
          { timeoutMs: config.webhookTimeoutMs, allowPrivateTargets: config.allowPrivateTargets })
      },
      {
        params: oneParams, query: t.Object({ eventType: t.Optional(t.String()) }),
        response: { 200: TestResult, ...errors },
        detail: { summary: 'Send a sample event (documentId `webhook-test`) now and show the answer' },
      },
    )
    .get(
      '/teams/:teamId/webhooks/:id/deliveries',
      ({ params, headers }) => {
        auth(headers.authorization, params.teamId)
        return listDeliveries(db, params.teamId, params.id)
      },
      { params: oneParams, response: { 200: t.Array(DeliveryView), ...errors }, detail: { summary: 'Delivery log, newest first (last 50 events)' } },
    )
    .post(
      '/teams/:teamId/webhooks/:id/deliveries/:eventId/redeliver',
      ({ params, headers, status }) => {
        auth(headers.authorization, params.teamId)
        return status(202, redeliver(db, params.teamId, params.id, params.eventId))
      },
      {
        params: t.Object({ teamId: t.String({ maxLength: 200 }), id: t.String({ maxLength: 200 }), eventId: t.String({ maxLength: 200 }) }),
        response: { 202: t.Object({ eventId: t.String(), eventType: t.String(), status: t.Literal('pending') }), ...errors, 409: ErrorBody },
        detail: { summary: 'Send an event again with the same eventId and bytes' },
      },
    )
}
