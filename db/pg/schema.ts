/**
 * The PostgreSQL twin of db/schema.ts: the same tables, columns, keys and indexes under the same
 * names, so one query reads the same on both (test/db/pg/schema-twin.test.ts keeps them in step).
 * What each table and column means is written once, in db/schema.ts; here only what differs:
 *
 * - 0/1 flags are `boolean`; ms times and ever-growing counters `bigint` (read as numbers);
 *   small counts and ordinals `integer`.
 * - spec.md timestamps (`created_at`, `updated_at`, ... of documents, teams, snapshots) stay
 *   `text`: the 7-digit fraction is kept byte for byte, and text order is time order.
 * - JSON the code reads as a value is `json` (not jsonb: the text keeps its key order); JSON read
 *   back as exact text (`outbox_events.payload`, `revisions.summary`) stays `text`.
 * - `revisions.body` is `bytea` and always an encoded blob (db/revision-body.ts): there are no
 *   plain-text rows on PostgreSQL, so SQLite's `revisions_plain` index has no twin. A copy from
 *   SQLite encodes any text row it meets.
 * - Autoincrement keys are identity columns BY DEFAULT, so a copy can keep every `seq` (a delta
 *   names its keyframe by seq); after such a copy, move the sequence past the largest.
 */
import { sql } from 'drizzle-orm'
import { pgTable, text, integer, bigint, boolean, primaryKey, index, uniqueIndex } from 'drizzle-orm/pg-core'
import { bytea, jsonText } from './column-types'

const ms = (name: string) => bigint(name, { mode: 'number' })
const serial = (name: string) => bigint(name, { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity()
const teamRef = () => text('team_id').notNull().references(() => teams.id, { onDelete: 'cascade' })

export const meta = pgTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})

export const teams = pgTable('teams', {
  id: text('id').primaryKey(),
  workspaceId: text('workspace_id').notNull(),
  locales: jsonText<string[]>('locales').notNull(),
  defaultLocale: text('default_locale').notNull(),
  fallbacks: jsonText<Record<string, string>>('fallbacks').notNull().default(sql`'{}'::json`),
  contentIndex: jsonText<unknown>('content_index'),
  indexGeneration: integer('index_generation').notNull().default(0),
  indexedGeneration: integer('indexed_generation').notNull().default(0),
  features: jsonText<{ history: boolean; snapshots: boolean }>('features').notNull().default(sql`'{"history":true,"snapshots":true}'::json`),
  createdAt: text('created_at').notNull(),
})

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  tokenHash: text('token_hash').notNull().unique(),
})

export const memberships = pgTable(
  'memberships',
  {
    teamId: teamRef(),
    userId: text('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    capabilities: jsonText<string[]>('capabilities').notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] })],
)

export const contentTypes = pgTable(
  'content_types',
  {
    teamId: teamRef(),
    name: text('name').notNull(),
    collection: text('collection').notNull(),
    urls: boolean('urls').notNull().default(false),
    definition: jsonText<Record<string, unknown>>('definition').notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.name] })],
)

export const documents = pgTable(
  'documents',
  {
    teamId: teamRef(),
    id: text('id').notNull(),
    canonicalId: text('canonical_id').notNull(),
    kind: text('kind', { enum: ['canonical', 'draft', 'scheduled', 'snapshot', 'activity'] }).notNull(),
    collection: text('collection').notNull(),
    body: jsonText<Record<string, unknown>>('body').notNull(),
    changeVector: text('change_vector').notNull(),
    published: boolean('published').notNull().default(false),
    archived: boolean('archived').notNull().default(false),
    deletedAt: text('deleted_at'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.id] }),
    index('documents_canonical').on(t.teamId, t.canonicalId),
    /**
     * SQLite's `json_extract(body, '$.fields.parent')`: a query uses the index only with this very
     * expression and `kind = 'canonical'`. Through nul_safe_json (migration 0002): `->` alone fails
     * on a body that holds `\u0000` anywhere.
     */
    index('documents_page_parent').on(t.teamId, sql`((nul_safe_json(${t.body}) -> 'fields') ->> 'parent')`).where(sql`${t.kind} = 'canonical'`),
    index('documents_collection').on(t.teamId, t.collection, t.canonicalId).where(sql`${t.kind} IN ('canonical', 'draft') AND ${t.deletedAt} IS NULL`),
  ],
)

export const revisions = pgTable(
  'revisions',
  {
    seq: serial('seq'),
    teamId: teamRef(),
    documentId: text('document_id').notNull(),
    /** Dense per document, so a deep version page is a seek on `revisions_doc_ordinal`. */
    ordinal: integer('ordinal').notNull(),
    changeVector: text('change_vector').notNull(),
    body: bytea('body').notNull(),
    summary: text('summary'),
    stamped: boolean('stamped').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('revisions_cv').on(t.teamId, t.changeVector),
    uniqueIndex('revisions_doc_ordinal').on(t.teamId, t.documentId, t.ordinal),
  ],
)

export const revisionLocales = pgTable(
  'revision_locales',
  {
    teamId: teamRef(),
    documentId: text('document_id').notNull(),
    locale: text('locale').notNull(),
    lastOrdinal: integer('last_ordinal').notNull(),
    lastAt: text('last_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.documentId, t.locale] })],
)

export const snapshots = pgTable(
  'snapshots',
  {
    teamId: teamRef(),
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

export const schedules = pgTable(
  'schedules',
  {
    teamId: teamRef(),
    documentId: text('document_id').notNull(),
    publishAt: ms('publish_at').notNull(),
    scheduledBy: text('scheduled_by').notNull(),
    leaseToken: text('lease_token'),
    leaseExpiresAt: ms('lease_expires_at'),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.documentId] }), index('schedules_due').on(t.publishAt)],
)

export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    teamId: teamRef(),
    label: text('label').notNull(),
    provider: text('provider', { enum: ['custom', 'netlify', 'vercel', 'github'] }).notNull(),
    target: text('target').notNull(),
    events: jsonText<string[]>('events').notNull(),
    secret: text('secret').notNull(),
    options: jsonText<Record<string, unknown>>('options').notNull().default(sql`'{}'::json`),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('webhooks_team').on(t.teamId)],
)

export const outboxEvents = pgTable('outbox_events', {
  eventId: text('event_id').primaryKey(),
  /** The exact bytes every attempt sends: text, never re-serialised. */
  payload: text('payload').notNull(),
})

export const outbox = pgTable(
  'outbox',
  {
    seq: serial('seq'),
    eventId: text('event_id').notNull(),
    webhookId: text('webhook_id').notNull().references(() => webhooks.id, { onDelete: 'cascade' }),
    teamId: text('team_id').notNull(),
    eventType: text('event_type').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ms('next_attempt_at').notNull(),
    leaseToken: text('lease_token'),
    leaseExpiresAt: ms('lease_expires_at'),
    trigger: text('trigger', { enum: ['scheduled', 'manual', 'test'] }).notNull().default('scheduled'),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('outbox_event_webhook').on(t.eventId, t.webhookId),
    /** The claim's earliest due rows of each webhook, as on SQLite. */
    index('outbox_webhook_due').on(t.status, t.webhookId, t.nextAttemptAt, t.seq),
    index('outbox_webhook_seq').on(t.webhookId, t.seq),
  ],
)

export const deliveryAttempts = pgTable(
  'delivery_attempts',
  {
    id: serial('id'),
    outboxSeq: bigint('outbox_seq', { mode: 'number' }).notNull(),
    webhookId: text('webhook_id').notNull(),
    eventId: text('event_id').notNull(),
    attempt: integer('attempt').notNull(),
    trigger: text('trigger', { enum: ['scheduled', 'manual', 'test'] }).notNull(),
    startedAt: ms('started_at').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    responseBody: text('response_body'),
    nextAttemptAt: ms('next_attempt_at'),
  },
  (t) => [index('attempts_outbox').on(t.outboxSeq, t.id)],
)

export const siteChanges = pgTable(
  'site_changes',
  {
    id: serial('id'),
    teamId: text('team_id').notNull(),
    status: text('status', { enum: ['template', 'localization', 'locales', 'index'] }).notNull(),
    userId: text('user_id'),
    occurredAt: ms('occurred_at').notNull(),
    emittedAt: ms('emitted_at'),
  },
  (t) => [index('site_changes_team').on(t.teamId, t.emittedAt)],
)

export const metricCounters = pgTable(
  'metric_counters',
  {
    name: text('name').notNull(),
    outcome: text('outcome').notNull(),
    value: bigint('value', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.name, t.outcome] })],
)
