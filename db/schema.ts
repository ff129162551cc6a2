/**
 * The one SQLite schema shared by the api, the dispatcher and the CLI.
 * JSON columns are stored as text; their TypeScript shapes are given with `$type`.
 */
import { sql } from 'drizzle-orm'
import { sqliteTable, text, integer, primaryKey, index, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** Node id and the global etag counter that change vectors are made from. */
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})

export const teams = sqliteTable('teams', {
  id: text('id').primaryKey(),
  workspaceId: text('workspace_id').notNull(),
  locales: text('locales', { mode: 'json' }).$type<string[]>().notNull(),
  defaultLocale: text('default_locale').notNull(),
  fallbacks: text('fallbacks', { mode: 'json' }).$type<Record<string, string>>().notNull().default({}),
  contentIndex: text('content_index', { mode: 'json' }).$type<unknown>(),
  /** Bumped on every content-index push; the index counts as caught up once `indexedGeneration` reaches it. */
  indexGeneration: integer('index_generation').notNull().default(0),
  indexedGeneration: integer('indexed_generation').notNull().default(0),
  /** The editor app's History drawer flags (spec.md "Versioning"): they change no endpoint's answer. */
  features: text('features', { mode: 'json' }).$type<{ history: boolean; snapshots: boolean }>().notNull().default({ history: true, snapshots: true }),
  createdAt: text('created_at').notNull(),
})

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  /** SHA-256 hex of the bearer token; the token itself is never stored. */
  tokenHash: text('token_hash').notNull().unique(),
})

export const memberships = sqliteTable(
  'memberships',
  {
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    capabilities: text('capabilities', { mode: 'json' }).$type<string[]>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] })],
)

export const contentTypes = sqliteTable(
  'content_types',
  {
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    collection: text('collection').notNull(),
    urls: integer('urls', { mode: 'boolean' }).notNull().default(false),
    /** The whole content type as configured (fields, icon, hint, ...). */
    definition: text('definition', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.name] })],
)

/**
 * Canonical documents and their siblings (`/draft`, `/scheduled`, `/snapshot/<token>`) and
 * activity documents (`/activity`) share one keyspace per team, as in the spec.
 */
export const documents = sqliteTable(
  'documents',
  {
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    canonicalId: text('canonical_id').notNull(),
    kind: text('kind', { enum: ['canonical', 'draft', 'scheduled', 'snapshot', 'activity'] }).notNull(),
    /** Collection of the content type; `@activity` for activity documents (not a content collection). */
    collection: text('collection').notNull(),
    body: text('body', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    changeVector: text('change_vector').notNull(),
    /** Canonical only: live on the site. */
    published: integer('published', { mode: 'boolean' }).notNull().default(false),
    archived: integer('archived', { mode: 'boolean' }).notNull().default(false),
    /** Soft delete: the row and its revisions stay, reads answer 404. */
    deletedAt: text('deleted_at'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.id] }),
    index('documents_canonical').on(t.teamId, t.canonicalId),
    /**
     * The pages below a page (webhook URLs, core/events/record.ts): children by `fields.parent`.
     * A query uses it only with this very expression and `kind = 'canonical'`.
     */
    index('documents_page_parent').on(t.teamId, sql`json_extract(${t.body}, '$.fields.parent')`).where(sql`${t.kind} = 'canonical'`),
    /**
     * The document list of one collection in keyset order (core/content/list.ts): a seek to the
     * collection and the `after` id, not a walk of the team. Only the rows the list shows are in it;
     * a query uses it only with these very terms.
     */
    index('documents_collection').on(t.teamId, t.collection, t.canonicalId).where(sql`${t.kind} IN ('canonical', 'draft') AND ${t.deletedAt} IS NULL`),
  ],
)

/** Revisions exist only because publish forces them; `stamped` marks a Published Version. */
export const revisions = sqliteTable(
  'revisions',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    documentId: text('document_id').notNull(),
    /** 1, 2, 3, ... per document; removed only all at once, so dense: a deep version page is an index seek. */
    ordinal: integer('ordinal').notNull(),
    changeVector: text('change_vector').notNull(),
    /**
     * The body publish wrote: JSON text in rows not yet converted, else a compressed blob (a
     * keyframe, or a delta against one: db/revision-body.ts). Read it through db/store.ts only.
     */
    body: text('body', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /**
     * A Published Version's row in the version list, `[publishedAt, publishedBy, [locales]]` as
     * JSON, so a page of versions decodes no body. Null in rows not yet converted, and when the
     * stamp is not two strings: the list then reads the body.
     */
    summary: text('summary'),
    stamped: integer('stamped', { mode: 'boolean' }).notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('revisions_cv').on(t.teamId, t.changeVector),
    uniqueIndex('revisions_doc_ordinal').on(t.teamId, t.documentId, t.ordinal),
    /** Rows still in plain JSON text, for the background conversion (dispatcher/compress-revisions.ts). */
    index('revisions_plain').on(t.seq).where(sql`typeof(${t.body}) = 'text'`),
  ],
)

/**
 * Per document and locale, the newest Published Version carrying the locale: its ordinal and the
 * latest `created_at` of those versions. A whole-draft restore asks which locales were published
 * since its source (spec.md restore rule 1): one range seek here instead of reading the body of
 * every later version. Written with each stamped revision (db/store.ts `putRevision`).
 */
export const revisionLocales = sqliteTable(
  'revision_locales',
  {
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    documentId: text('document_id').notNull(),
    locale: text('locale').notNull(),
    lastOrdinal: integer('last_ordinal').notNull(),
    lastAt: text('last_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.documentId, t.locale] })],
)

export const snapshots = sqliteTable(
  'snapshots',
  {
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    /** `<document_id>/snapshot/<token>`; the body lives in `documents` under the same id. */
    id: text('id').notNull(),
    documentId: text('document_id').notNull(),
    name: text('name'),
    createdBy: text('created_by').notNull(),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at'),
    revokedAt: text('revoked_at'),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.id] }), index('snapshots_doc').on(t.teamId, t.documentId)],
)

/** A scheduled publish of `<document_id>/scheduled`, run by the dispatcher when due. */
export const schedules = sqliteTable(
  'schedules',
  {
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    documentId: text('document_id').notNull(),
    publishAt: integer('publish_at').notNull(),
    scheduledBy: text('scheduled_by').notNull(),
    /** Unused since schedules are no longer leased (core/publish/scheduled.ts); kept, always null, to spare a migration. */
    leaseToken: text('lease_token'),
    /** After a failed publish: not tried again before this time (ms); cleared by a new schedule. */
    leaseExpiresAt: integer('lease_expires_at'),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.documentId] }), index('schedules_due').on(t.publishAt)],
)

export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    teamId: text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    provider: text('provider', { enum: ['custom', 'netlify', 'vercel', 'github'] }).notNull(),
    target: text('target').notNull(),
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    /** Kept in clear because signing needs it; never logged, never returned after creation. */
    secret: text('secret').notNull(),
    /** Provider extras (e.g. a GitHub token and event_type). */
    options: text('options', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('webhooks_team').on(t.teamId)],
)

/**
 * Each event's bytes, written once at enqueue, so every retry to every webhook sends the same.
 * Apart from `outbox`: SQLite rewrites a whole row on UPDATE, and a lease change then rewrites a short one.
 */
export const outboxEvents = sqliteTable('outbox_events', {
  eventId: text('event_id').primaryKey(),
  payload: text('payload').notNull(),
})

/**
 * Transactional outbox: one row per (event, webhook), inserted in the same transaction as
 * the change it reports; its payload is the event's `outbox_events` row.
 */
export const outbox = sqliteTable(
  'outbox',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    eventId: text('event_id').notNull(),
    webhookId: text('webhook_id').notNull().references(() => webhooks.id, { onDelete: 'cascade' }),
    teamId: text('team_id').notNull(),
    eventType: text('event_type').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    leaseToken: text('lease_token'),
    leaseExpiresAt: integer('lease_expires_at'),
    /** `manual` after a redeliver request, so its attempts are logged as such. */
    trigger: text('trigger', { enum: ['scheduled', 'manual', 'test'] }).notNull().default('scheduled'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('outbox_event_webhook').on(t.eventId, t.webhookId),
    /**
     * The claim reads the earliest due rows of each webhook: a short range scan per webhook.
     * The only index on `status` (every state change rewrites it); counts by status use it too.
     */
    index('outbox_webhook_due').on(t.status, t.webhookId, t.nextAttemptAt, t.seq),
    /** A webhook's delivery log (newest first) and its rows on delete: a range, not a scan of every webhook's rows. */
    index('outbox_webhook_seq').on(t.webhookId, t.seq),
  ],
)

/** Every delivery attempt, scheduled or manual, for the delivery log. */
export const deliveryAttempts = sqliteTable(
  'delivery_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    outboxSeq: integer('outbox_seq').notNull(),
    webhookId: text('webhook_id').notNull(),
    eventId: text('event_id').notNull(),
    attempt: integer('attempt').notNull(),
    trigger: text('trigger', { enum: ['scheduled', 'manual', 'test'] }).notNull(),
    startedAt: integer('started_at').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    responseBody: text('response_body'),
    nextAttemptAt: integer('next_attempt_at'),
  },
  /** The attempts of the log's rows, and of a pruned or deleted row: without it each read scanned every attempt ever made. */
  (t) => [index('attempts_outbox').on(t.outboxSeq, t.id)],
)

/** Site changes waiting for the quiet window; the dispatcher coalesces them per team. */
export const siteChanges = sqliteTable(
  'site_changes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    teamId: text('team_id').notNull(),
    status: text('status', { enum: ['template', 'localization', 'locales', 'index'] }).notNull(),
    userId: text('user_id'),
    occurredAt: integer('occurred_at').notNull(),
    /** Set when the coalesced `site.changed` event that covers this change was written. */
    emittedAt: integer('emitted_at'),
  },
  (t) => [index('site_changes_team').on(t.teamId, t.emittedAt)],
)

/**
 * Counters of a process that serves no HTTP (the dispatcher's scheduled publishes), read by the api's
 * `/metrics`; written in the transaction of what they count, so a restart loses nothing.
 */
export const metricCounters = sqliteTable(
  'metric_counters',
  {
    name: text('name').notNull(),
    outcome: text('outcome').notNull(),
    value: integer('value').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.name, t.outcome] })],
)

export type DocumentRow = typeof documents.$inferSelect
/** A revision as read whole (db/store.ts); `summary` is read only by the version list. */
export type RevisionRow = Omit<typeof revisions.$inferSelect, 'summary'>
export type TeamRow = typeof teams.$inferSelect
export type WebhookRow = typeof webhooks.$inferSelect
export type OutboxRow = typeof outbox.$inferSelect
