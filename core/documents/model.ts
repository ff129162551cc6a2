/**
 * Document and batch schemas. Imports only TypeBox so the dispatcher and CLI can share them.
 */
import { Type as t, type Static } from '@sinclair/typebox'

const Json = t.Record(t.String(), t.Unknown())

/** A document as a client sends it to `POST /content/{activeTeam}`. */
export const DocumentInput = t.Object(
  {
    id: t.String({ minLength: 1, maxLength: 512, description: 'Canonical id, or `<id>/draft`' }),
    contentType: t.String({ minLength: 1, maxLength: 200 }),
    fields: t.Optional(Json),
    locales: t.Optional(t.Record(t.String(), Json)),
    // Accepted only to be removed: spec.md strips them from incoming bodies.
    __publishedBy: t.Optional(t.Unknown()),
    __publishedAt: t.Optional(t.Unknown()),
    __dirtyLocales: t.Optional(t.Unknown()),
    Id: t.Optional(t.Unknown()),
    '@metadata': t.Optional(t.Unknown()),
  },
  { additionalProperties: false, title: 'DocumentInput' },
)
export type DocumentInput = Static<typeof DocumentInput>

/** A document as stored and served. */
export const Document = t.Object(
  {
    id: t.String(),
    contentType: t.String(),
    fields: Json,
    locales: t.Record(t.String(), Json),
    __dirtyLocales: t.Optional(t.Array(t.String())),
    __publishedBy: t.Optional(t.String()),
    __publishedAt: t.Optional(t.String()),
  },
  { additionalProperties: true, title: 'DocumentBody' },
)
export type Document = Static<typeof Document>

/** What the api adds to every document it serves (`present` in service.ts). */
export const Metadata = t.Object(
  {
    '@collection': t.String(),
    '@change-vector': t.String({ description: 'The ETag of the document, without quotes' }),
    '@last-modified': t.String({ description: 'ISO 8601, UTC' }),
    published: t.Optional(t.Boolean({ description: 'Canonical documents only' })),
    archived: t.Optional(t.Boolean({ description: 'Canonical documents only' })),
  },
  { additionalProperties: true, title: 'DocumentMetadata' },
)

/** A canonical or draft as the api serves it: the stored document and its `@metadata`. */
export const DocumentView = t.Object({ ...Document.properties, '@metadata': Metadata }, { additionalProperties: true, title: 'Document' })
export type DocumentView = Static<typeof DocumentView>

/** One entry of an activity document (core/documents/activity.ts). */
export const ActivityEntry = t.Object(
  {
    kind: t.Union([t.Literal('EDIT'), t.Literal('APPLY_REVISION'), t.Literal('APPLY_SNAPSHOT')]),
    locale: t.Union([t.String(), t.Null()], { description: 'The locale an entry concerns; `null` for non-localizable fields or the whole document' }),
    userId: t.String(),
    at: t.String({ description: 'ISO 8601, UTC' }),
    source: t.Optional(t.String({ description: 'Restore entries: the version reference or snapshot id restored from' })),
    locales: t.Optional(t.Union([t.Array(t.String()), t.Null()], { description: 'Restore entries: the locales restored; `null` for all' })),
  },
  { additionalProperties: false, title: 'ActivityEntry' },
)
export type ActivityEntry = Static<typeof ActivityEntry>

/**
 * An activity document (`<id>/activity`), as `GET /content` serves it. Closed (no other
 * properties), unlike a document: a generated client tells the two apart with
 * `'contentType' in data`, which an open schema (an index signature) would not allow.
 */
export const ActivityView = t.Object(
  {
    id: t.String({ description: '`<id>/activity`' }),
    entries: t.Array(ActivityEntry, { description: 'Newest last, at most 500' }),
    '@metadata': Metadata,
  },
  { additionalProperties: false, title: 'ActivityDocument' },
)

/** `If-Match: "<change vector>"` (the ETag a read gave) makes a write conditional: 409 when the document moved on. */
export const IfMatch = t.Object({ 'if-match': t.Optional(t.String({ description: 'The ETag of the last read; the write happens only if the document is still at it (else 409; a header that is no entity-tag list is 400 invalid_if_match)' })) })

/** `If-None-Match: "<change vector>"` on a read: `304 Not Modified` (no body) when the document is still at it. */
export const IfNoneMatch = t.Object({ 'if-none-match': t.Optional(t.String({ description: 'ETags of the copy the client holds; when the document is still at one of them the answer is 304 without a body' })) })

/** A refused item of a batch (and the one item of restore's 400/403/404/409 lists): `reason` says why. */
export const BatchFailure = t.Object({ id: t.String(), status: t.Literal(1), reason: t.String() }, { additionalProperties: false, title: 'BatchFailure' })
export type BatchFailure = Static<typeof BatchFailure>
/** A done item of a lifecycle batch: the resulting document where one remains (none after a delete). */
export const BatchDone = t.Object({ id: t.String(), status: t.Literal(0), document: t.Optional(DocumentView) }, { additionalProperties: false, title: 'BatchDone' })
/** spec.md's batch result item: either one, told apart by `status`, so a generated client narrows on it. */
export const BatchItem = t.Union([BatchDone, BatchFailure], { title: 'BatchItem', description: '`status` 0: done; 1: refused, see `reason`' })
export type BatchItem = Static<typeof BatchItem>
export const BatchList = t.Array(BatchItem)
/** A published item always carries the live document it became. */
export const Published = t.Object({ id: t.String(), status: t.Literal(0), document: DocumentView }, { additionalProperties: false, title: 'Published' })
export const PublishItem = t.Union([Published, BatchFailure], { title: 'PublishItem', description: '`status` 0: published, with the live document; 1: refused, see `reason`' })
export type PublishItem = Static<typeof PublishItem>
export const PublishList = t.Array(PublishItem)
/** A batch failure answered as a list of one (restore's 400/403/404/409 shape). */
export const FailureList = t.Array(BatchFailure, { minItems: 1, maxItems: 1 })

/**
 * `{error, message}`. Named `ErrorBody` in the OpenAPI document, not `Error`: clients generated
 * by hey-api or orval would declare a type `Error` shadowing the global one where imported.
 */
export const ErrorBody = t.Object({
  error: t.String({
    description: 'A stable code (docs/errors.md#codes lists each): unauthorized, forbidden, not_found, malformed_json, invalid_body, payload_too_large, '
      + 'missing_id, sibling_id, not_content, invalid_id, bad_paging, bad_reference, bad_kind, missing_version, missing_snapshot_id, mismatch, '
      + 'protected_field, invalid_patch, invalid_document, invalid_name, unknown_content_type, unknown_locale, misplaced_field, invalid_slug, conflict, invalid_if_match, bad_expiry, '
      + 'invalid_target, invalid_secret, invalid_event_type, delivery_in_progress, unsupported_media_type, method_not_allowed, busy, internal',
  }),
  message: t.String({ description: 'For people; may change' }),
  // Said here: Elysia sets it on a response schema the first time it checks one, and this object
  // is shared by every route's error responses, so the document would change after a request.
}, { additionalProperties: false, title: 'ErrorBody' })

/**
 * RFC 6902 JSON Patch, for the OpenAPI document only (`x-json-patch`, api/openapi.ts): the route
 * takes any array of objects and fast-json-patch judges the operations, so a bad one stays
 * `400 invalid_patch` (core/content/service.ts), never a schema's `invalid_body`.
 */
const pointer = (description: string) => t.String({ pattern: '^(/([^~/]|~[01])*)*$', description })
export const JsonPatchOperation = t.Union([
  t.Object({ op: t.Union([t.Literal('add'), t.Literal('replace'), t.Literal('test')]), path: pointer('JSON Pointer of the target'), value: t.Unknown() }),
  t.Object({ op: t.Literal('remove'), path: pointer('JSON Pointer of the target') }),
  t.Object({ op: t.Union([t.Literal('move'), t.Literal('copy')]), from: pointer('JSON Pointer of the source'), path: pointer('JSON Pointer of the target') }),
], { title: 'JsonPatchOperation', description: 'One RFC 6902 operation; `/__publishedBy`, `/__publishedAt`, `/__dirtyLocales`, the root and (but for `test` and copying from it) `/id` are protected (`400 protected_field`)' })
export const JsonPatch = t.Array(JsonPatchOperation, { title: 'JsonPatch', description: 'RFC 6902 JSON Patch, applied in order, all or nothing' })

/** Lifecycle batches run their ids in order: a repeated id meets the first one's result (e.g. "There is no draft to discard."). */
export const BatchIds = t.Object({ ids: t.Array(t.String(), { minItems: 1, maxItems: 100, description: 'Canonical document ids, run in order' }) }, { additionalProperties: false, title: 'IdList' })
/** Publish ids each once: a repeat would publish, and version, the same document twice in one request. */
export const PublishInput = t.Object(
  {
    ids: t.Array(t.String(), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Canonical document ids, each at most once' }),
    locales: t.Optional(t.Array(t.String(), { minItems: 1, maxItems: 64, uniqueItems: true })),
  },
  { additionalProperties: false, title: 'PublishRequest' },
)

/** `POST /content/schedule/{activeTeam}`: the draft of `id` is published at `publishAt`. */
export const ScheduleRequest = t.Object(
  { id: t.String({ maxLength: 512, description: 'Canonical document id' }), publishAt: t.String({ maxLength: 64, description: 'RFC 3339 with an offset (`2030-01-01T09:00:00Z`, `...+02:00`) or a date alone (midnight UTC); a time already past is published at the dispatcher\'s next poll' }) },
  { additionalProperties: false, title: 'ScheduleRequest' },
)
export const ScheduledPublish = t.Object(
  { id: t.String({ description: '`<id>/scheduled`' }), documentId: t.String(), publishAt: t.String(), scheduledBy: t.String() },
  { title: 'ScheduledPublish' },
)

/** A row of `GET /content/list` (core/content/list.ts). */
export const DocumentSummary = t.Object({
  id: t.String({ description: 'Canonical id' }),
  contentType: t.String(),
  collection: t.String(),
  published: t.Boolean({ description: 'Live on the site' }),
  archived: t.Boolean(),
  draft: t.Boolean({ description: 'A draft exists (`<id>/draft`); a document that was never saved as a canonical has only a draft' }),
  dirtyLocales: t.Array(t.String(), { description: "The draft's locales that differ from what is live (empty without a draft)" }),
  updatedAt: t.String({ description: 'The last write of the canonical or the draft' }),
}, { additionalProperties: false, title: 'DocumentSummary' })
export type DocumentSummary = Static<typeof DocumentSummary>

/** The list's filters (GET /content/list and the assistant's list_content), one definition for both and OpenAPI. */
export const ListCollection = t.String({ maxLength: 200, description: 'Only documents of this collection (`pages`)' })
export const ListAfter = t.String({ maxLength: 1024, description: 'The `nextAfter` of the previous page: the page goes on after this canonical id' })

export const DocumentList = t.Object({
  rows: t.Array(DocumentSummary),
  hasMore: t.Boolean(),
  nextAfter: t.Union([t.String(), t.Null()], { description: 'Pass as `after` for the next page; null on the last' }),
}, { additionalProperties: false, title: 'DocumentList' })
export type DocumentList = Static<typeof DocumentList>
