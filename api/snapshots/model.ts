/** Snapshot schemas (contract.md "Documents" table, snapshot rows). Imports only TypeBox. */
import { Type as t, type Static } from '@sinclair/typebox'

export const SnapshotStatus = t.Union([t.Literal('active'), t.Literal('expired'), t.Literal('revoked')])

export const SnapshotRecord = t.Object({
  id: t.String({ description: '`<document_id>/snapshot/<token>`' }),
  documentId: t.String({ description: 'Canonical id' }),
  name: t.Union([t.String(), t.Null()]),
  status: SnapshotStatus,
  createdAt: t.String({ description: 'ISO 8601, UTC' }),
  createdBy: t.String(),
  expiresAt: t.Union([t.String(), t.Null()]),
}, { additionalProperties: false, title: 'SnapshotRecord' })
export type SnapshotRecord = Static<typeof SnapshotRecord>

// A missing `documentId` or `id` is `400 missing_id` (api/http/error-mapping.ts), not a generic invalid_body.
export const CreateSnapshotInput = t.Object(
  {
    documentId: t.String({ maxLength: 512, description: 'Canonical id' }),
    version: t.Optional(t.String({ maxLength: 200, description: 'A version reference of `documentId` (a version row): snapshot that Published Version instead of the draft' })),
    name: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])),
    expiresAt: t.Optional(t.Union([t.String({ maxLength: 64, description: 'ISO 8601, in the future' }), t.Null()])),
  },
  { additionalProperties: false, title: 'SnapshotCreate' },
)
export const RenameSnapshotInput = t.Object({ name: t.Union([t.String({ maxLength: 200 }), t.Null()]) }, { additionalProperties: false, title: 'SnapshotRename' })
export const RevokeSnapshotInput = t.Object({ id: t.String({ maxLength: 700, description: 'Snapshot id' }) }, { additionalProperties: false, title: 'SnapshotRevoke' })

/** A row of `GET /content/snapshots`: the record, the languages it carries, and when it was revoked. */
export const SnapshotListItem = t.Composite([SnapshotRecord, t.Object({
  locales: t.Array(t.String(), { description: 'The languages the snapshot carries' }),
  revokedAt: t.Union([t.String(), t.Null()], { description: 'When it was revoked (ISO 8601, UTC); null when it was not' }),
})], { title: 'SnapshotListItem' })
export const SnapshotList = t.Object({
  documentId: t.String({ description: 'Canonical id' }),
  snapshots: t.Array(SnapshotListItem, { description: 'Every snapshot of the document, active, expired or revoked, newest first' }),
}, { additionalProperties: false, title: 'SnapshotList' })
