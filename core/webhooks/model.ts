/**
 * Webhook contracts shared by the api and the dispatcher. Imports only TypeBox (style.md rule 3),
 * so the dispatcher binary does not pull in Elysia.
 */
import { Type as t, type Static, type TSchema } from '@sinclair/typebox'

export const EVENT_TYPES = ['content.published', 'content.unpublished', 'site.changed'] as const
export type EventType = (typeof EVENT_TYPES)[number]
export const PROVIDERS = ['custom', 'netlify', 'vercel', 'github'] as const
export type Provider = (typeof PROVIDERS)[number]

/**
 * contract.md "Webhooks": how deliveries are signed. `service`: spec.md's headers only.
 * `standard-webhooks`: those plus the Standard Webhooks headers, keyed with a `whsec_` secret.
 */
export const SIGNATURE_SCHEMES = ['service', 'standard-webhooks'] as const
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number]
const SignatureSchemeSchema = t.Union([t.Literal('service'), t.Literal('standard-webhooks')], {
  description: '`service` (default): spec.md\'s headers only. `standard-webhooks`: also `webhook-id`, `webhook-timestamp` and `webhook-signature` '
    + '(Standard Webhooks), keyed with a `whsec_` secret (`whsec_` + base64 of at least 24 bytes; generated when none is given).',
})

/**
 * The scheme of a stored webhook. It is kept in the `options` column (no migration), and only
 * when it is not the default: a `service` webhook's stored row is what it was before the setting.
 */
export function signatureSchemeOf(options: Record<string, unknown>): SignatureScheme {
  return options.signatureScheme === 'standard-webhooks' ? 'standard-webhooks' : 'service'
}

/** spec.md "Webhook configuration": site.changed is never preselected. */
export const DEFAULT_EVENTS: EventType[] = ['content.published', 'content.unpublished']

export const EventTypeSchema = t.Union([t.Literal('content.published'), t.Literal('content.unpublished'), t.Literal('site.changed')])
const ProviderSchema = t.Union([t.Literal('custom'), t.Literal('netlify'), t.Literal('vercel'), t.Literal('github')])

/**
 * Provider extras, github only: a repository_dispatch needs a token (sent as `Authorization:
 * Bearer`, so printable ASCII) and may name its `event_type`.
 */
const GithubToken = t.String({ minLength: 1, maxLength: 500, pattern: '^[\\x21-\\x7e]+$', description: 'github only: a token allowed to dispatch to the repository (printable ASCII, no spaces)' })
const GithubEventType = t.String({ minLength: 1, maxLength: 100, description: 'github only: the `event_type` of the dispatch (default: the event\'s own type, such as `content.published`)' })
export const WebhookOptionsInput = t.Object(
  {
    token: t.Optional(GithubToken),
    eventType: t.Optional(GithubEventType),
  },
  { additionalProperties: false },
)

/** On update: a given option replaces the stored one; `eventType: null` removes it (back to the default). */
const WebhookOptionsPatch = t.Object(
  {
    token: t.Optional(GithubToken),
    eventType: t.Optional(t.Union([GithubEventType, t.Null()])),
  },
  { additionalProperties: false },
)

export const WebhookCreate = t.Object(
  {
    label: t.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f\\u007f\\u2028\\u2029]+$', description: 'One line of text, not only spaces' }),
    provider: ProviderSchema,
    target: t.String({ minLength: 1, maxLength: 2000 }),
    events: t.Optional(t.Array(EventTypeSchema, { minItems: 1, maxItems: 3, uniqueItems: true })),
    // The length and whitespace rule is checked by the service (core/webhooks/service.ts
    // `secretProblem`), so a refusal names the secret (`invalid_secret`), not a schema path.
    secret: t.Optional(t.String({
      maxLength: 500,
      description: 'Empty or absent: one is generated (32 random bytes). Otherwise 32 to 500 characters, no whitespace (else 400 invalid_secret); '
        + 'with `signatureScheme: "standard-webhooks"`, `whsec_` + base64 of at least 24 bytes.',
    })),
    options: t.Optional(WebhookOptionsInput),
    signatureScheme: t.Optional(SignatureSchemeSchema),
  },
  { additionalProperties: false, title: 'WebhookCreate' },
)
export type WebhookCreate = Static<typeof WebhookCreate>

export const WebhookPatch = t.Partial(t.Object({
  ...WebhookCreate.properties,
  secret: t.String({
    maxLength: 500,
    description: 'A new secret (32 to 500 characters, no whitespace, else 400 invalid_secret; `whsec_` + base64 of at least 24 bytes '
      + 'for the `standard-webhooks` scheme) replaces the old one and is answered in full once. Empty or absent: the secret is kept, '
      + 'except when the webhook moves to `standard-webhooks` with a secret not of that form: then a new one is generated and answered once.',
  }),
  options: WebhookOptionsPatch,
}), { additionalProperties: false, title: 'WebhookUpdate' })
export type WebhookPatch = Static<typeof WebhookPatch>

/** Redelivery's answer: a new attempt of the same event (same `eventId`, same bytes) is queued. */
export const RedeliveryAccepted = t.Object(
  { eventId: t.String(), eventType: EventTypeSchema, status: t.Literal('pending') },
  { additionalProperties: false, title: 'RedeliveryAccepted' },
)

/**
 * Recover's request: the window of event times, `until` defaulting to now. Either bound is
 * checked by the service (`400 bad_window`), so a refusal names the window, not a schema path.
 */
export const RecoverRequest = t.Object({
  since: t.String({ maxLength: 100, description: 'RFC 3339 timestamp with its offset: events that happened at or after it' }),
  until: t.Optional(t.String({ maxLength: 100, description: 'RFC 3339 timestamp with its offset: events that happened before it (default: now); after `since`' })),
}, { additionalProperties: false, title: 'RecoverRequest' })
export type RecoverRequest = Static<typeof RecoverRequest>

/** Recover's answer: how many failed deliveries went back to pending (none twice). */
export const RecoverAccepted = t.Object({ queued: t.Integer({ minimum: 0 }) }, { additionalProperties: false, title: 'RecoverAccepted' })

/** What management endpoints answer; never the secret or a provider token. */
export const WebhookRecord = t.Object({
  id: t.String(),
  label: t.String(),
  provider: ProviderSchema,
  target: t.String(),
  events: t.Array(EventTypeSchema),
  secretLast4: t.String(),
  options: t.Object({ eventType: t.Optional(t.String()), tokenLast4: t.Optional(t.String()) }),
  signatureScheme: SignatureSchemeSchema,
  createdAt: t.String(),
  updatedAt: t.String(),
}, { additionalProperties: false, title: 'WebhookRecord' })
export type WebhookRecord = Static<typeof WebhookRecord>
/** Create, and update with a new secret: the only answers that carry the full secret. */
export const WebhookWithSecret = t.Composite([WebhookRecord, t.Object({ secret: t.String() })], { additionalProperties: false, title: 'WebhookWithSecret' })

export const TestResult = t.Object({
  delivered: t.Boolean(),
  status: t.Union([t.Integer(), t.Null()]),
  durationMs: t.Integer(),
  responseBody: t.String(),
  error: t.Optional(t.String()),
}, { additionalProperties: false, title: 'WebhookTestResult' })

/** `scheduled` by the dispatcher, `manual` after a redelivery, `test` from the test endpoint. */
const TriggerSchema = t.Union([t.Literal('scheduled'), t.Literal('manual'), t.Literal('test')])

export const AttemptView = t.Object({
  attempt: t.Integer(),
  trigger: TriggerSchema,
  at: t.String(),
  statusCode: t.Union([t.Integer(), t.Null()]),
  error: t.Union([t.String(), t.Null()]),
  durationMs: t.Integer(),
  nextAttemptAt: t.Union([t.String(), t.Null()]),
  responseBody: t.String({ description: "The receiver's answer, up to 4 KiB; empty when there was none" }),
}, { additionalProperties: false, title: 'DeliveryAttempt' })
/** Where a delivery (one event to one webhook) stands. */
export const DeliveryStatus = t.Union([t.Literal('pending'), t.Literal('delivered'), t.Literal('failed')])

export const DeliveryView = t.Object({
  eventId: t.String(),
  eventType: EventTypeSchema,
  status: DeliveryStatus,
  createdAt: t.String(),
  attempts: t.Array(AttemptView),
}, { additionalProperties: false, title: 'Delivery' })

/**
 * spec.md "Webhook event payload (JSON body, version 2)". Field order is the spec's. A schema (not
 * only a type) so that the OpenAPI document's `webhooks` entry gives receivers a payload type.
 * Open (no `additionalProperties: false`): fields are only ever added within a version.
 */
const nullable = <T extends TSchema>(schema: T, description: string) => t.Union([schema, t.Null()], { description })
export const EventPayload = t.Object({
  v: t.Literal(2, { description: 'Payload version; fields are only ever added within a version' }),
  eventType: t.Union(EventTypeSchema.anyOf, { description: 'Equals the `X-Service-Event` header' }),
  eventId: t.String({ format: 'uuid', description: 'Equals the `X-Service-Delivery` header; identical on every retry' }),
  occurredAt: t.String({ format: 'date-time', description: 'UTC timestamp (ISO 8601) of the event' }),
  teamId: t.String(),
  workspaceId: t.String(),
  userId: nullable(t.String(), 'Acting user; `null` for a scheduled publish'),
  documentId: nullable(t.String(), 'The document; `null` on `site.changed`, except in a test send (`POST .../test`), whose every sample names `webhook-test`'),
  collection: nullable(t.String(), "Collection of the document's content type; `null` on `site.changed`"),
  locales: t.Array(t.String(), { description: 'Languages a publish covered; empty on other events' }),
  status: t.Union([
    t.Literal('published'), t.Literal('archived'), t.Literal('deleted'), t.Literal('template'), t.Literal('localization'), t.Literal('locales'), t.Literal('index'),
  ], { description: 'See spec.md "Events"' }),
  url: t.String({ description: "Version 1 field: the default language's entry of `urls`; on `content.unpublished`, the first of `previousUrls`" }),
  urls: t.Record(t.String(), t.String(), { description: 'Language code to path where the document is served after the change' }),
  previousUrls: t.Array(t.String(), { description: 'Paths that served the document before the change and no longer do' }),
  scope: t.Union([t.Literal('document'), t.Literal('site')], { description: '`site`: `urls` and `previousUrls` may be incomplete, refresh everything' }),
}, { title: 'EventPayload' })
export type EventPayload = Static<typeof EventPayload>
