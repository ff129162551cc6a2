/**
 * Restore schemas (spec.md "Restore request", "Batch result item", "Restore: three 400 body
 * shapes"). They document the routes in OpenAPI; the body itself is read by hand in
 * `request.ts` so each refusal keeps the code and shape the spec gives it.
 */
import { Type as t } from '@sinclair/typebox'
import { DocumentView } from '../../core/documents/model'
import { ErrorBody, FailureList } from '../http/schemas'

const Locales = t.Union([t.Array(t.String(), { minItems: 1, maxItems: 64 }), t.Null()], {
  description: '`null` or absent: every locale the source carries. Otherwise a non-empty subset of the team\'s configured locales',
})

/** A text field of a restore body: `null` (and `""`) is taken as absent, as request.ts reads it. */
const text = (description: string) => t.Optional(t.Union([t.String(), t.Null()], { description: `${description}. \`null\` or \`""\` is the same as absent` }))

/** Unknown fields are refused (`400 invalid_body`), so the documents say so too. */
export const RestoreRequest = t.Object(
  {
    kind: t.Union([t.Literal('snapshot'), t.Literal('revision')]),
    documentId: text('Canonical id. Required for `revision`; for `snapshot` must match the snapshot'),
    snapshotId: text('Required for `snapshot`: `<document_id>/snapshot/<token>`'),
    version: text('Required for `revision`: a version reference from a version row'),
    locales: t.Optional(Locales),
  },
  { additionalProperties: false, title: 'RestoreRequest' },
)

export const ApplySnapshotRequest = t.Object(
  {
    snapshotId: t.String({ description: '`<document_id>/snapshot/<token>`' }),
    documentId: text('When given, must be the snapshot\'s canonical'),
    locales: t.Optional(Locales),
    kind: t.Optional(t.Literal('snapshot', { description: 'Optional; any other value is `400 bad_kind`' })),
  },
  { additionalProperties: false, title: 'ApplySnapshotRequest' },
)

/** The one item of a restore's answer: the resulting draft. */
export const RestoreResult = t.Object(
  { id: t.String({ description: 'Canonical document id' }), status: t.Literal(0), document: DocumentView },
  { title: 'RestoreResult' },
)

/** RFC 7807 problem details: only for a missing, empty or literal `null` body. */
export const ProblemBody = t.Object({
  title: t.String(),
  status: t.Literal(400),
  errors: t.Record(t.String(), t.Array(t.String())),
}, { additionalProperties: false, title: 'Problem' })

/** Every answer a restore route gives, per status, for `response:` and OpenAPI. */
export const restoreResponses = {
  200: t.Array(RestoreResult, {
    minItems: 1, maxItems: 1, description: 'One item: `status: 0` and the resulting draft (`<id>/draft`)',
  }),
  400: t.Union([ProblemBody, ErrorBody, FailureList], { description: 'Problem details, `{error, message}`, or a one-item batch list' }),
  401: ErrorBody,
  403: t.Union([ErrorBody, FailureList], { description: '`{error: "forbidden"}` from auth, or a batch list (ChangeLiveContent)' }),
  404: FailureList,
  409: FailureList,
}

/**
 * The same answers as OpenAPI responses. Given by hand because a status has one media type in
 * the generated document, and spec.md's problem details are `application/problem+json`.
 */
const LIST_TEXT: Record<string, string> = {
  404: 'Unknown document or snapshot, or a `version` that names no Published Version of `documentId`: a one-item batch list (`status: 1`, `reason`)',
  409: 'Snapshot expired or revoked, the draft or its activity document changed during the restore, or `If-Match` did not hold: a one-item batch list (`status: 1`, `reason`); re-read and retry',
}
export const restoreOpenApiResponses = {
  ...Object.fromEntries(
    Object.entries(restoreResponses).map(([status, schema]) => [
      status,
      { description: schema.description ?? LIST_TEXT[status] ?? '', content: { 'application/json': { schema } } },
    ]),
  ),
  400: {
    description: restoreResponses[400].description ?? '',
    content: {
      'application/problem+json': { schema: ProblemBody },
      'application/json': { schema: t.Union([ErrorBody, FailureList]) },
    },
  },
}

/** OpenAPI request body, given by hand since the route parses its body itself. */
export const requestBody = (schema: object) => ({ required: true, content: { 'application/json': { schema } } })
