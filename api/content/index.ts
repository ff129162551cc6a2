/**
 * Document routes of contract.md: read, create/replace, JSON Patch, lifecycle operations,
 * scheduling. `{activeTeam}` comes from the route only.
 */
import { Elysia, t } from 'elysia'
import { authGuard } from '../http/auth-guard'
import { SCHEDULE_REQUIRES } from '../../core/publish/scheduled'
import type { AppDeps } from '../deps'
import { runLifecycleWaiting, schedulePublish, LIFECYCLE_OPS } from '../../core/content/lifecycle'
import { ActivityView, DocumentInput, DocumentList, DocumentView } from '../../core/documents/model'
import { BatchList, ErrorBody, IfMatch, IfNoneMatch, ListAfter, ListCollection } from '../http/schemas'
import { BatchIds, ScheduledPublish, ScheduleRequest } from './model'
import { listDocuments, parseListPageSize } from '../../core/content/list'
import { ifNoneMatchHits } from '../../core/documents/if-match'
import { patchDocument, present, readDocument, writeDocument } from '../../core/content/service'

const team = t.Object({ activeTeam: t.String({ maxLength: 200 }) })
// Unknown query parameters (cache busters, client extras) are ignored, not refused.
// `id` is required (a missing one is `400 missing_id`: api/http/error-mapping.ts).
const idQuery = t.Object({ id: t.String({ description: 'Document id: a canonical id or a sibling id (`<id>/draft`, ...)' }) }, { additionalProperties: true })
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }

export function contentRoutes({ db, config }: AppDeps) {
  const app = new Elysia({ detail: { tags: ['content'] } })
    .use(authGuard(db))
    .get(
      '/content/:activeTeam',
      async ({ params, query, headers, set }) => {
        const row = await readDocument(db, params.activeTeam, query.id)
        const etag = JSON.stringify(row.changeVector)
        // The client's copy is current: no body (RFC 9110 section 15.4.5: the ETag is sent again).
        // (`as never`: an async handler's Promise of a Response or a typed body fits neither of Elysia's MaybePromise types.)
        if (ifNoneMatchHits(headers['if-none-match'], row.changeVector)) return new Response(null, { status: 304, headers: { etag } }) as never
        set.headers.etag = etag
        return present(row)
      },
      {
        requires: ['EditContent'],
        params: team,
        query: idQuery,
        headers: IfNoneMatch,
        response: { 200: t.Union([DocumentView, ActivityView], { description: 'The document (a canonical, or a draft, scheduled or snapshot sibling), or an activity document' }), ...errors },
        detail: { summary: 'Read a canonical or sibling document', 'x-etag': true, 'x-not-modified': true },
      },
    )
    .post(
      '/content/:activeTeam',
      async ({ params, body, headers, set, caller }) => {
        // An ETag from GET, sent back as If-Match, makes the write conditional (409 on a mismatch).
        const row = await writeDocument(db, {
          teamId: params.activeTeam, userId: caller.userId, doc: body, ifMatch: headers['if-match'], mayChangeLive: caller.capabilities.has('ChangeLiveContent'),
        })
        set.headers.etag = JSON.stringify(row.changeVector)
        return present(row)
      },
      {
        requires: ['EditContent'],
        params: team,
        headers: IfMatch,
        body: DocumentInput,
        response: { 200: DocumentView, ...errors, 409: ErrorBody },
        detail: { summary: 'Create or replace a canonical or draft (stamp fields are removed)', description: 'Rewriting a published canonical in place needs `ChangeLiveContent` too (else `403 forbidden`).', 'x-etag': true },
      },
    )
    .patch(
      '/content/:activeTeam',
      async ({ params, query, body, headers, set, caller }) => {
        const row = await patchDocument(db, {
          teamId: params.activeTeam, userId: caller.userId, id: query.id, patch: body, ifMatch: headers['if-match'], mayChangeLive: caller.capabilities.has('ChangeLiveContent'),
          maxBytes: config.maxBodyBytes,
        })
        set.headers.etag = JSON.stringify(row.changeVector)
        return present(row)
      },
      {
        requires: ['EditContent'],
        params: team,
        query: idQuery,
        headers: IfMatch,
        body: t.Array(t.Record(t.String(), t.Unknown()), { description: 'RFC 6902 JSON Patch' }),
        response: { 200: DocumentView, ...errors, 409: ErrorBody },
        detail: { summary: 'Apply a JSON Patch; stamp fields and __dirtyLocales are protected', 'x-json-patch': true, description: 'Patching a published canonical in place needs `ChangeLiveContent` too (else `403 forbidden`).', 'x-etag': true },
      },
    )
    .post(
      '/content/schedule/:activeTeam',
      async ({ params, body, set, caller }) => {
        set.status = 201
        return await schedulePublish(db, { teamId: params.activeTeam, userId: caller.userId, ...body })
      },
      {
        requires: SCHEDULE_REQUIRES,
        params: team,
        body: ScheduleRequest,
        response: { 201: ScheduledPublish, ...errors },
        detail: { summary: 'Schedule a publish of the draft; the dispatcher publishes it when due' },
      },
    )
    .get(
      '/content/list/:activeTeam',
      async ({ params, query }) =>
        await listDocuments(db, params.activeTeam, { collection: query.collection || undefined, after: query.after || undefined, pageSize: parseListPageSize(query.pageSize) }),
      {
        requires: ['EditContent'],
        params: team,
        // `pageSize` stays text so that a bad one is `400 bad_paging` naming it, as on the version list.
        query: t.Object({ collection: t.Optional(ListCollection), after: t.Optional(ListAfter), pageSize: t.Optional(t.String()) }, { additionalProperties: true }),
        response: { 200: DocumentList, ...errors },
        detail: {
          summary: "List the team's documents: one row per canonical id, in id order, with its published, archived and draft state",
          // Listed whole: given parameters replace the generated ones, the path's among them.
          parameters: [
            { in: 'path', name: 'activeTeam', required: true, schema: { type: 'string', maxLength: 200 } },
            { in: 'query', name: 'collection', description: ListCollection.description, schema: { type: 'string', maxLength: ListCollection.maxLength } },
            { in: 'query', name: 'after', description: ListAfter.description, schema: { type: 'string', maxLength: ListAfter.maxLength } },
            { in: 'query', name: 'pageSize', description: 'Rows per page, capped at 100', schema: { type: 'integer', minimum: 1, default: 25 } },
          ],
        },
      },
    )
  for (const op of LIFECYCLE_OPS) {
    const needs = op === 'copy' || op === 'discard-draft' ? (['EditContent'] as const) : (['EditContent', 'ChangeLiveContent'] as const)
    app.post(
      `/content/${op}/:activeTeam`,
      ({ params, body, caller }) => {
        return runLifecycleWaiting(db, op, { teamId: params.activeTeam, userId: caller.userId }, body.ids)
      },
      { requires: [...needs], params: team, body: BatchIds, response: { 200: BatchList, ...errors }, detail: { summary: `Batch ${op}` } },
    )
  }
  return app
}
