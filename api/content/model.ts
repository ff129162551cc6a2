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
  { additionalProperties: false },
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
  { additionalProperties: true },
)
export type Document = Static<typeof Document>

/** Batch result item of spec.md. */
export const BatchItem = t.Object({
  id: t.String(),
  status: t.Union([t.Literal(0), t.Literal(1)]),
  document: t.Optional(t.Record(t.String(), t.Unknown())),
  reason: t.Optional(t.String()),
})
export type BatchItem = Static<typeof BatchItem>
export const BatchList = t.Array(BatchItem)

export const ErrorBody = t.Object({ error: t.String(), message: t.String() })

export const BatchIds = t.Object({ ids: t.Array(t.String(), { minItems: 1, maxItems: 100 }) }, { additionalProperties: false })
export const PublishInput = t.Object(
  {
    ids: t.Array(t.String(), { minItems: 1, maxItems: 100 }),
    locales: t.Optional(t.Array(t.String(), { minItems: 1, maxItems: 64 })),
  },
  { additionalProperties: false },
)
