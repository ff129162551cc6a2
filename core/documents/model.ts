/**
 * Document and batch item schemas: the shapes core's services read and write. Imports only
 * TypeBox so the dispatcher and CLI can share them. What only the HTTP layer needs (errors,
 * headers, request bodies) is in api/http/schemas.ts and the features' model.ts.
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

/** A refused item of a batch (and the one item of restore's 400/403/404/409 lists): `reason` says why. */
export const BatchFailure = t.Object({ id: t.String(), status: t.Literal(1), reason: t.String() }, { additionalProperties: false, title: 'BatchFailure' })
export type BatchFailure = Static<typeof BatchFailure>
/** A done item of a lifecycle batch: the resulting document where one remains (none after a delete). */
export const BatchDone = t.Object({ id: t.String(), status: t.Literal(0), document: t.Optional(DocumentView) }, { additionalProperties: false, title: 'BatchDone' })
/** spec.md's batch result item: either one, told apart by `status`, so a generated client narrows on it. */
export const BatchItem = t.Union([BatchDone, BatchFailure], { title: 'BatchItem', description: '`status` 0: done; 1: refused, see `reason`' })
export type BatchItem = Static<typeof BatchItem>
/** A published item always carries the live document it became. */
export const Published = t.Object({ id: t.String(), status: t.Literal(0), document: DocumentView }, { additionalProperties: false, title: 'Published' })
export const PublishItem = t.Union([Published, BatchFailure], { title: 'PublishItem', description: '`status` 0: published, with the live document; 1: refused, see `reason`' })
export type PublishItem = Static<typeof PublishItem>
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
  title: t.Union([t.String(), t.Null()], { description: "The `title` field (else the `name` field) of the team's default language, from the draft when there is one; null when it has neither as text" }),
  scheduledAt: t.Union([t.String(), t.Null()], { description: 'When a scheduled publish of the draft is due (RFC 3339, UTC); null when none is scheduled' }),
}, { additionalProperties: false, title: 'DocumentSummary' })
export type DocumentSummary = Static<typeof DocumentSummary>

export const DocumentList = t.Object({
  rows: t.Array(DocumentSummary),
  hasMore: t.Boolean(),
  nextAfter: t.Union([t.String(), t.Null()], { description: 'Pass as `after` for the next page; null on the last' }),
}, { additionalProperties: false, title: 'DocumentList' })
export type DocumentList = Static<typeof DocumentList>
