/**
 * Schemas of the content routes only: lifecycle batch ids, scheduling, and the JSON Patch body
 * as the OpenAPI document shows it.
 */
import { Type as t } from '@sinclair/typebox'

/** Lifecycle batches run their ids in order: a repeated id meets the first one's result (e.g. "There is no draft to discard."). */
export const BatchIds = t.Object({ ids: t.Array(t.String(), { minItems: 1, maxItems: 100, description: 'Canonical document ids, run in order' }) }, { additionalProperties: false, title: 'IdList' })
/** `POST /content/schedule/{activeTeam}`: the draft of `id` is published at `publishAt`. */
export const ScheduleRequest = t.Object(
  { id: t.String({ maxLength: 512, description: 'Canonical document id' }), publishAt: t.String({ maxLength: 64, description: 'RFC 3339 with an offset (`2030-01-01T09:00:00Z`, `...+02:00`) or a date alone (midnight UTC); a time already past is published at the dispatcher\'s next poll' }) },
  { additionalProperties: false, title: 'ScheduleRequest' },
)
export const ScheduledPublish = t.Object(
  { id: t.String({ description: '`<id>/scheduled`' }), documentId: t.String(), publishAt: t.String(), scheduledBy: t.String() },
  { additionalProperties: false, title: 'ScheduledPublish' },
)

/**
 * RFC 6902 JSON Patch, for the OpenAPI document only (`x-json-patch`, api/http/openapi-document.ts): the route
 * takes any array of objects and core/documents/json-patch.ts judges the operations, so a bad one stays
 * `400 invalid_patch`, never a schema's `invalid_body`.
 */
const pointer = (description: string) => t.String({ pattern: '^(/([^~/]|~[01])*)*$', description })
export const JsonPatchOperation = t.Union([
  t.Object({ op: t.Union([t.Literal('add'), t.Literal('replace'), t.Literal('test')]), path: pointer('JSON Pointer of the target'), value: t.Unknown() }),
  t.Object({ op: t.Literal('remove'), path: pointer('JSON Pointer of the target') }),
  t.Object({ op: t.Union([t.Literal('move'), t.Literal('copy')]), from: pointer('JSON Pointer of the source'), path: pointer('JSON Pointer of the target') }),
], { title: 'JsonPatchOperation', description: 'One RFC 6902 operation; `/__publishedBy`, `/__publishedAt`, `/__dirtyLocales`, the root and (but for `test` and copying from it) `/id` are protected (`400 protected_field`)' })
export const JsonPatch = t.Array(JsonPatchOperation, { title: 'JsonPatch', description: 'RFC 6902 JSON Patch, applied in order, all or nothing' })

