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

/**
 * The restore request as the OpenAPI document gives it: one shape per `kind`, so a client
 * generated from it cannot build `{kind: "revision"}` without `documentId` and `version`, nor a
 * snapshot restore without `snapshotId`. Unknown fields are refused (`400 invalid_body`), so
 * each shape is closed. The route still reads the body by hand (core/restore/request.ts), which
 * gives every refusal the code and shape spec.md fixes; this schema only documents it.
 */
export const RevisionRestoreRequest = t.Object(
  {
    kind: t.Literal('revision'),
    documentId: t.String({ minLength: 1, description: 'Canonical id of the document' }),
    version: t.String({ minLength: 1, description: 'A version reference, as a version row gives it' }),
    locales: t.Optional(Locales),
  },
  { additionalProperties: false, title: 'RevisionRestoreRequest' },
)

export const SnapshotRestoreRequest = t.Object(
  {
    kind: t.Literal('snapshot'),
    snapshotId: t.String({ minLength: 1, description: '`<document_id>/snapshot/<token>`' }),
    documentId: text('When given, must be the snapshot\'s canonical'),
    locales: t.Optional(Locales),
  },
  { additionalProperties: false, title: 'SnapshotRestoreRequest' },
)

export const RestoreRequest = t.Union([RevisionRestoreRequest, SnapshotRestoreRequest], {
  title: 'RestoreRequest',
  description: 'A Published Version (`kind: "revision"`) or a snapshot (`kind: "snapshot"`) to restore into the draft',
  discriminator: {
    propertyName: 'kind',
    mapping: { revision: '#/components/schemas/RevisionRestoreRequest', snapshot: '#/components/schemas/SnapshotRestoreRequest' },
  },
})

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
