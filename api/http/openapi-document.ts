/**
 * Post-processing of the OpenAPI document that `@elysiajs/swagger` generates from the routes'
 * TypeBox schemas, so that generated clients and strict validators accept it:
 * - it is declared OpenAPI 3.1, whose schemas are JSON Schema: TypeBox's `const`, `type: "null"`
 *   and `patternProperties` are valid there (the plugin says 3.0.3, where they are not);
 * - every response gets a `description` (required) and only its `content` and `headers`: the
 *   plugin also copies array and union keywords (`items`, `anyOf`, ...) onto the response object;
 * - bodies are JSON only: the plugin offers `multipart/form-data` and `text/plain` for every
 *   body, which this API refuses; a route that declares its own media types (restore's
 *   `application/problem+json`) keeps them;
 * - every operation declares the `400 invalid_body` of a repeated query parameter, a `401`'s
 *   `WWW-Authenticate: Bearer` header, the `413 payload_too_large` the app answers for a body over
 *   MAX_BODY_BYTES and the `415 unsupported_media_type` for one that is not UTF-8 JSON
 *   (api/http/json-only.ts checks a body sent with any method, a GET's or a DELETE's too, before routing),
 *   the `500 internal` of an unexpected failure, and the `503 busy` (with `Retry-After`) of a write
 *   that waited past the busy timeout on another process's lock;
 * - a map (`t.Record(t.String(), X)`, written `patternProperties: {"^(.*)$": X}`) is written
 *   `additionalProperties: X`, which means the same and which generators turn into
 *   `{[key: string]: X}` (some read `patternProperties` as values of unknown type);
 * - routes marked `x-etag` declare the `ETag` header of their 200 answer, and `x-not-modified`
 *   the bodiless `304` of a read whose `If-None-Match` names the current ETag; `x-responses`
 *   (status to text) describes a route's own answers where the common text would mislead;
 * - Elysia's coercing `t.Integer`/`t.Numeric` (an integer, or a string holding one, for query
 *   text) is documented as the number it is, and a whole numeric `const` as an integer;
 * - the capabilities an operation needs (the `requires` route option, api/auth.ts, puts them in
 *   `x-capabilities`) open its description, so a reader of a generated client sees them;
 * - operationIds are identifiers in camelCase (the plugin keeps a path's hyphens:
 *   `postContentApply-versionByActiveTeam`), and every tag used is listed with a description;
 * - the top-level `webhooks` (OpenAPI 3.1) describes the request the dispatcher sends to a target
 *   (spec.md "Request sent to a webhook target"), so receivers generate the payload type too;
 * - a route marked `x-json-patch` (PATCH /content) documents its body as RFC 6902 operations
 *   (`JsonPatch`), under `application/json-patch+json` too (api/http/json-only.ts reads every `+json` type);
 *   the route's own schema stays loose so that fast-json-patch judges the operations
 *   (`400 invalid_patch`), not the schema (`400 invalid_body`);
 * - a schema listed in `NAMED` (its `title`, given in the feature's model.ts, is its name:
 *   `Document`, `BatchItem`, `ErrorBody`, ...) is written once under `components.schemas` and referred
 *   to by `$ref` everywhere it occurs, so generated clients get a type of that name.
 */
import { prometheusContentType } from 'prom-client'
import { JsonRpcAnswer, JsonRpcMessage } from '../assistant/model'
import { ActivityEntry, ActivityView, BatchDone, BatchFailure, BatchItem, Document, DocumentInput, DocumentList, DocumentSummary, DocumentView, Metadata, Published, PublishItem } from '../../core/documents/model'
import { ErrorBody, PublishInput } from './schemas'
import { BatchIds, JsonPatch, JsonPatchOperation, ScheduledPublish, ScheduleRequest } from '../content/model'
import { HistoryResponse, HistorySnapshot } from '../history/model'
import { Health } from '../ops/model'
import { ApplySnapshotRequest, ProblemBody, RestoreRequest, RestoreResult, RevisionRestoreRequest, SnapshotRestoreRequest } from '../restore/model'
import { CreateSnapshotInput, RenameSnapshotInput, RevokeSnapshotInput, SnapshotList, SnapshotListItem, SnapshotRecord } from '../snapshots/model'
import { ContentIndexDefinition, ContentIndexResult, ContentIndexState, ContentTypeDefinition, ContentTypeInput, ContentTypeResult, LocalesInput, LocalizationInput, Me, MyTeam, TeamFeatures, TeamLocales } from '../../core/teams/model'
import { VersionPage, VersionRow } from '../versions/model'
import {
  AttemptView, DeliveryView, EVENT_TYPES, EventPayload, RecoverAccepted, RecoverRequest, RedeliveryAccepted, TestResult, WebhookCreate, WebhookPatch, WebhookRecord, WebhookWithSecret,
} from '../../core/webhooks/model'

/** Media types the API reads and writes. */
const MEDIA_TYPES = new Set(['application/json', 'application/problem+json', prometheusContentType])

const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  400: 'Bad request: `{error, message}`',
  401: 'Missing or unknown bearer token: `{error: "unauthorized", message}`',
  403: 'Not a member of the team, or a capability is missing: `{error: "forbidden", message}`',
  404: 'Not found',
  409: 'Conflict: `{error, message}`; `conflict` when the document changed meanwhile (If-Match)',
  413: 'Body larger than MAX_BODY_BYTES: `{error: "payload_too_large", message}`. Beyond max(4 x MAX_BODY_BYTES, 8 MiB) the server refuses the upload itself: a 413 with no body',
  415: 'A body (sent with any method but GET, a DELETE\'s too) that is not UTF-8 JSON, or has a Content-Encoding: `{error: "unsupported_media_type", message}`',
  500: 'Unexpected server error (logged): `{error: "internal", message}`',
  503: 'The database stayed locked by another write (e.g. a large seed) and the write did not happen; retry after `Retry-After` seconds: `{error: "busy", message}`. A batch the lock stops after its first item answers 200 instead, the items not done refused with a `busy: ...` reason',
}

type Json = Record<string, any>

/** The top-level `tags` list: every tag a route uses, in this order. */
const TAGS: Record<string, string> = {
  content: 'Documents: read, write, JSON Patch, publish and the other lifecycle batches, scheduling',
  versions: 'Published Versions of a document and its History timeline',
  restore: 'Locale-selective restore of a Published Version or a snapshot into the draft',
  snapshots: 'Named snapshots of a document: create, rename, revoke',
  webhooks: 'Signed change webhooks: configuration, test sends, delivery log, redelivery',
  teams: 'Team settings: locales, localization fallbacks, content types, content index',
  assistant: 'An MCP server (Streamable HTTP) for AI assistants: read and publish content',
  operations: 'Liveness and metrics',
}

const JSON_PATCH_CONTENT = Object.fromEntries(['application/json', 'application/json-patch+json'].map((type) => [type, { schema: { $ref: '#/components/schemas/JsonPatch' } }]))

const header = (name: string, description: string, schema: Json) => ({ name, in: 'header', required: true, description, schema })

/** spec.md "Request sent to a webhook target": what a receiver gets, for `webhooks.serviceEvent`. */
const SERVICE_EVENT = {
  post: {
    operationId: 'serviceEvent',
    summary: 'A change event, sent to every webhook subscribed to its type',
    description: 'Sent as `Content-Type: application/json; charset=utf-8`. Verify `X-Service-Signature` over the raw body '
      + 'before parsing it (`verifySignature` in `content-service/receiver`) and deduplicate on `X-Service-Delivery`.',
    tags: ['webhooks'],
    parameters: [
      header('X-Service-Event', 'The event type; equals the payload\'s `eventType`', { type: 'string', enum: [...EVENT_TYPES] }),
      header('X-Service-Delivery', 'The event id; equals the payload\'s `eventId` and is unchanged on every retry: deduplicate on it', { type: 'string' }),
      header('X-Service-Signature', '`sha256=` and the lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook\'s secret', { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' }),
      header('User-Agent', 'Always `Service-Webhooks/1.0`', { type: 'string', const: 'Service-Webhooks/1.0' }),
    ],
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/EventPayload' } } } },
    responses: {
      '2XX': { description: 'Delivered. Answer within the timeout (30 s)' },
      '401': { description: 'The signature does not match: final, not retried' },
      '5XX': { description: 'Retried (3 attempts in all), like a timeout or a network error; any other 4xx or 3xx is final' },
    },
    security: [],
  },
}

/** The sentence about capabilities that opens an operation's description. */
function capabilityText(op: Json): string {
  const needs: string[] = op['x-capabilities'] ?? []
  const any: string[] = op['x-capabilities-any'] ?? []
  if (any.length > 0) return `Needs one of the capabilities ${any.map((c) => `\`${c}\``).join(' or ')} in the team of the path.`
  if (needs.length > 0) return `Needs the capabilit${needs.length > 1 ? 'ies' : 'y'} ${needs.map((c) => `\`${c}\``).join(' and ')} in the team of the path.`
  return Array.isArray(op.security) && op.security.length === 0 ? 'Public: no token needed.' : 'Any valid bearer token; no team capability.'
}

/** `postContentApply-versionByActiveTeam` -> `postContentApplyVersionByActiveTeam`. */
const camelIdentifier = (id: string) => id.replace(/[^A-Za-z0-9_$]+([A-Za-z0-9_$]?)/g, (_, next: string) => next.toUpperCase())

const WWW_AUTHENTICATE = { description: 'Always `Bearer` (RFC 6750): the scheme the api takes', required: true, schema: { type: 'string', const: 'Bearer' } }

const ETAG_HEADER = { description: 'The change vector in quotes; send it back as `If-Match` to make a write conditional', required: true, schema: { type: 'string' } }

/** Keeps the media types the API speaks; a content map left empty is dropped. */
function jsonOnly(content: Json | undefined): Json | undefined {
  if (!content) return undefined
  const kept = Object.fromEntries(Object.entries(content).filter(([type, media]) => MEDIA_TYPES.has(type) && hasSchema(media)))
  return Object.keys(kept).length > 0 ? kept : undefined
}

/** The plugin writes `{}` (or an `undefined` type) for responses without a body, e.g. a 204. */
function hasSchema(media: Json): boolean {
  const schema = media?.schema
  return !!schema && Object.keys(schema).length > 0 && schema.type !== 'undefined' && schema.type !== 'void'
}

const ANY_KEY = '^(.*)$'

/** Rewrites maps and coercing numbers (see above) everywhere in a schema. */
function fixSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(fixSchema)
  if (!schema || typeof schema !== 'object') return schema
  const fixed: Json = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, fixSchema(v)]))
  const pattern = fixed.patternProperties
  // TypeBox writes `additionalProperties: false` beside it (moot: the pattern takes every key).
  if (pattern && Object.keys(pattern).length === 1 && ANY_KEY in pattern && (fixed.additionalProperties === undefined || fixed.additionalProperties === false)) {
    const { patternProperties: _, ...rest } = fixed
    return { ...rest, additionalProperties: pattern[ANY_KEY] }
  }
  // TypeBox types a numeric literal `number`; a whole one is an integer (spec.md's batch status).
  if (fixed.type === 'number' && Number.isInteger(fixed.const)) fixed.type = 'integer'
  const numeric = Array.isArray(fixed.anyOf) && fixed.anyOf.length === 2 ? numericOf(fixed.anyOf) : null
  if (numeric) {
    const { anyOf: _, ...rest } = fixed
    return { ...rest, ...numeric }
  }
  return fixed
}

/** `[{type: 'string', format: 'integer'|'numeric'}, {type: 'integer'|'number'}]` in either order: the number. */
function numericOf(branches: Json[]): Json | null {
  const text = branches.find((b) => b.type === 'string' && (b.format === 'integer' || b.format === 'numeric'))
  const number = branches.find((b) => b.type === 'integer' || b.type === 'number')
  if (!text || !number) return null
  return { ...number, ...(text.default !== undefined && number.default === undefined ? { default: Number(text.default) } : {}) }
}

/**
 * The named schemas, by title. Their `components.schemas` entry is written from the TypeBox
 * schema itself, not from an occurrence in the plugin's document: the plugin drops a top-level
 * response object's `title` and `additionalProperties` (it keeps the title on the response
 * object, where `response()` below reads it back).
 */
const NAMED: Record<string, Json> = Object.fromEntries([
  DocumentInput, Document, Metadata, JsonPatch, JsonPatchOperation, DocumentView, ActivityEntry, ActivityView, BatchItem, BatchDone, BatchFailure, Published, PublishItem, ErrorBody,
  VersionRow, VersionPage, SnapshotRecord, WebhookCreate, WebhookRecord, WebhookWithSecret, TestResult, AttemptView, DeliveryView, ProblemBody,
  EventPayload, DocumentSummary, DocumentList, HistoryResponse, HistorySnapshot,
  BatchIds, PublishInput, ScheduleRequest, ScheduledPublish, RestoreRequest, RevisionRestoreRequest, SnapshotRestoreRequest, ApplySnapshotRequest, RestoreResult,
  CreateSnapshotInput, RenameSnapshotInput, RevokeSnapshotInput, SnapshotList, SnapshotListItem, WebhookPatch, RedeliveryAccepted, RecoverRequest, RecoverAccepted,
  LocalesInput, LocalizationInput, TeamLocales, ContentTypeInput, ContentTypeResult, ContentIndexDefinition, ContentIndexResult, ContentTypeDefinition, ContentIndexState,
  JsonRpcMessage, JsonRpcAnswer, Health, Me, MyTeam, TeamFeatures,
].map((schema) => [schema.title as string, schema]))

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** Replaces every schema titled with a name of `NAMED` under `node` by a `$ref` to it. */
function hoistNamed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(hoistNamed)
  if (!node || typeof node !== 'object') return node
  const title = (node as Json).title
  // A use of a named schema may say what it is there (OpenAPI 3.1 allows a description beside `$ref`).
  if (typeof title === 'string' && title in NAMED) {
    const { description } = node as Json
    return description && description !== NAMED[title]!.description ? { ...ref(title), description } : ref(title)
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, hoistNamed(v)]))
}

/** `components.schemas`: every named schema, itself referring to the others by `$ref`. */
const namedSchemas = (): Json => Object.fromEntries(Object.keys(NAMED).sort().map((name) => {
  const fixed = fixSchema(NAMED[name]) as Json
  return [name, Object.fromEntries(Object.entries(fixed).map(([k, v]) => [k, hoistNamed(v)]))]
}))

/** One of the app-wide `{error, message}` answers (413, 415, 500, 503) as an OpenAPI response. */
const error = (status: string) => ({ description: STATUS_TEXT[status], content: { 'application/json': { schema: ErrorBody } } })

function response(status: string, given: Json, described?: string): Json {
  let content = status === '204' ? undefined : jsonOnly(given.content)
  // A named object answered as a whole: the plugin left its title here (see NAMED).
  if (content && typeof given.title === 'string' && given.title in NAMED) {
    content = Object.fromEntries(Object.keys(content).map((type) => [type, { schema: ref(given.title) }]))
  }
  return {
    description: described || given.description || STATUS_TEXT[status] || 'Response',
    ...(given.headers ? { headers: given.headers } : {}),
    ...(content ? { content } : {}),
  }
}

/** Returns the document fixed as described above (the input is not changed). */
export function normalizeOpenApi(doc: Json): Json {
  const paths: Json = {}
  for (const [path, operations] of Object.entries<Json>(doc.paths ?? {})) {
    paths[path] = {}
    for (const [method, op] of Object.entries<Json>(operations)) {
      const requestContent = op['x-json-patch'] ? JSON_PATCH_CONTENT : jsonOnly(op.requestBody?.content)
      const responses = Object.fromEntries(Object.entries<Json>(op.responses ?? {}).map(([status, r]) => [status, response(status, r, op['x-responses']?.[status])]))
      // A repeated query parameter is refused on every route (api/http/query-keys.ts), /health's too.
      responses['400'] ??= error('400')
      if (responses['401']) responses['401'] = { ...responses['401'], headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } }
      responses['413'] ??= error('413')
      // A GET's body is never read (Bun hands the route none): only its declared length is checked (413).
      if (method !== 'get') responses['415'] ??= error('415')
      responses['500'] ??= error('500')
      responses['503'] ??= { ...error('503'), headers: { 'Retry-After': { description: 'Seconds to wait before trying again', required: true, schema: { type: 'integer' } } } }
      // `x-etag` (route detail): the 200 answer carries the document's ETag, for `If-Match`.
      const { 'x-etag': etag, 'x-not-modified': notModified, 'x-responses': _described, 'x-json-patch': _patch, ...rest } = op
      if (etag && responses['200']) responses['200'] = { ...responses['200'], headers: { ETag: ETAG_HEADER } }
      if (notModified) responses['304'] = { description: 'Not Modified: `If-None-Match` names the document\'s current ETag (no body)', headers: { ETag: ETAG_HEADER } }
      paths[path][method] = fixSchema({
        ...rest,
        ...(typeof op.operationId === 'string' ? { operationId: camelIdentifier(op.operationId) } : {}),
        description: [capabilityText(op), op.description].filter(Boolean).join(' '),
        'x-capabilities': op['x-capabilities'] ?? [],
        ...(op.requestBody ? { requestBody: { ...op.requestBody, ...(requestContent ? { content: requestContent } : {}) } } : {}),
        responses,
      })
    }
  }
  const components = fixSchema(doc.components ?? {}) as Json
  const used = new Set(Object.values<Json>(paths).flatMap((ops) => Object.values<Json>(ops).flatMap((op) => op.tags ?? [])))
  const tags = [...Object.keys(TAGS).filter((name) => used.has(name)), ...[...used].filter((name) => !(name in TAGS)).sort()]
    .map((name) => ({ name, description: TAGS[name] ?? name }))
  return { ...doc, openapi: '3.1.0', tags, paths: hoistNamed(paths), webhooks: { serviceEvent: SERVICE_EVENT }, components: { ...components, schemas: { ...components.schemas, ...namedSchemas() } } }
}
