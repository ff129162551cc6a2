/**
 * Schemas the features' routes share that only HTTP needs: the `{error, message}` body, the
 * conditional-request headers, the publish request and the batch answers, the list filters.
 * Document shapes and batch items live in core/documents/model.ts, which core's services use.
 */
import { Type as t } from '@sinclair/typebox'
import { BatchFailure, BatchItem, PublishItem } from '../../core/documents/model'

/**
 * `{error, message}`. Named `ErrorBody` in the OpenAPI document, not `Error`: clients generated
 * by hey-api or orval would declare a type `Error` shadowing the global one where imported.
 */
export const ErrorBody = t.Object({
  error: t.String({
    description: 'A stable code (docs/errors.md#codes lists each): unauthorized, forbidden, not_found, malformed_json, invalid_body, payload_too_large, '
      + 'missing_id, sibling_id, not_content, invalid_id, bad_paging, bad_reference, bad_kind, missing_version, missing_snapshot_id, mismatch, '
      + 'protected_field, invalid_patch, invalid_document, invalid_name, unknown_content_type, unknown_locale, misplaced_field, invalid_slug, conflict, invalid_if_match, bad_expiry, '
      + 'invalid_target, invalid_secret, invalid_event_type, bad_window, delivery_in_progress, request_timeout, unsupported_media_type, method_not_allowed, busy, internal',
  }),
  message: t.String({ description: 'For people; may change' }),
  // Said here: Elysia sets it on a response schema the first time it checks one, and this object
  // is shared by every route's error responses, so the document would change after a request.
}, { additionalProperties: false, title: 'ErrorBody' })

/** `If-Match: "<change vector>"` (the ETag a read gave) makes a write conditional: 409 when the document moved on. */
export const IfMatch = t.Object({ 'if-match': t.Optional(t.String({ description: 'The ETag of the last read; the write happens only if the document is still at it (else 409; a header that is no entity-tag list is 400 invalid_if_match)' })) })

/** `If-None-Match: "<change vector>"` on a read: `304 Not Modified` (no body) when the document is still at it. */
export const IfNoneMatch = t.Object({ 'if-none-match': t.Optional(t.String({ description: 'ETags of the copy the client holds; when the document is still at one of them the answer is 304 without a body' })) })

/** Publish ids each once: a repeat would publish, and version, the same document twice in one request. */
export const PublishInput = t.Object(
  {
    ids: t.Array(t.String(), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Canonical document ids, each at most once' }),
    locales: t.Optional(t.Array(t.String(), { minItems: 1, maxItems: 64, uniqueItems: true })),
  },
  { additionalProperties: false, title: 'PublishRequest' },
)

export const BatchList = t.Array(BatchItem)
export const PublishList = t.Array(PublishItem)
/** A batch failure answered as a list of one (restore's 400/403/404/409 shape). */
export const FailureList = t.Array(BatchFailure, { minItems: 1, maxItems: 1 })

/** The list's filters (GET /content/list and the assistant's list_content), one definition for both and OpenAPI. */
export const ListCollection = t.String({ maxLength: 200, description: 'Only documents of this collection (`pages`)' })
export const ListAfter = t.String({ maxLength: 1024, description: 'The `nextAfter` of the previous page: the page goes on after this canonical id' })

