/**
 * The assistant's tools (docs/mcp.md#tools): what an AI assistant connected over MCP
 * may do in one team, as plain functions over the same services the REST routes call. Publishing
 * from an assistant is spec.md's "assistant tool call `publish_content`": the one publish
 * function, so it stamps, records one Published Version, counts on
 * `service.api.publish.revisions` and sends `content.published` with the acting user.
 */
import { t, type Static, type TSchema } from 'elysia'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { isBusy, type Db } from '../../db/client'
import type { Capability, Caller } from '../../core/auth'
import { AppError, busyAnswer } from '../../core/errors'
import { expectation } from '../../core/schema-errors'
import type { Logger } from '../../core/log'
import type { Metrics } from '../../core/metrics'
import { ActivityView, DocumentList, DocumentView } from '../../core/documents/model'
import { ListAfter, ListCollection, PublishInput, PublishList } from '../http/schemas'
import { LIST_PAGE, listDocuments } from '../../core/content/list'
import { present, readDocument } from '../../core/content/service'
import { publishBatchWaiting } from '../../core/publish/service'

export interface ToolContext {
  db: Db
  metrics: Metrics
  log: Logger
  caller: Caller
}

/** A tool's answer: the JSON object it returns (MCP `structuredContent`), or a refusal with the api's error code. */
export type ToolOutcome = { ok: Record<string, unknown> } | { error: string; message: string }

interface Tool<In extends TSchema> {
  description: string
  /** Capabilities beyond `EditContent` (which the whole MCP route requires). */
  requires: Capability[]
  /** MCP annotations: how a client should treat a call (ask first, retry freely). */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean }
  input: In
  output: TSchema
  run(ctx: ToolContext, args: Static<In>): Record<string, unknown> | Promise<Record<string, unknown>>
}

const tool = <In extends TSchema>(def: Tool<In>) => def

// No length limit of its own: an id no document can have is unknown, as on `GET /content`.
const GetInput = t.Object(
  { id: t.String({ minLength: 1, description: 'Document id: a canonical id (`pages/about`) or a sibling id (`pages/about/draft`)' }) },
  { additionalProperties: false },
)

const ListInput = t.Object({
  collection: t.Optional(ListCollection),
  after: t.Optional(ListAfter),
  // TypeBox's own integer: Elysia's `t.Integer` also takes a numeric string ("-1", "3.0"), which
  // passed the check unbounded (60,000 rows, or an SQL error) and told clients `format: integer`.
  pageSize: t.Optional(Type.Integer({ minimum: 1, maximum: LIST_PAGE.max, description: `Rows per page (default ${LIST_PAGE.fallback})` })),
}, { additionalProperties: false })

/** The tools by their MCP names. */
export const TOOLS = {
  publish_content: tool({
    description:
      'Publish documents of this team: each draft (or the canonical when there is no draft) goes live with the publish stamp and becomes a new Published Version. ' +
      'With `locales`, only those languages of the draft go live. Answers one result per id (`status` 0 done, 1 refused with a `reason`), in the order of `ids`.',
    requires: ['ChangeLiveContent'],
    // It replaces what the site serves; publishing again makes another version.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    input: PublishInput,
    output: t.Object({ results: PublishList }),
    run: async ({ db, metrics, caller }, args) => ({
      results: await publishBatchWaiting(db, metrics, args.ids, {
        teamId: caller.teamId, locales: args.locales, stampUserId: caller.userId, actorUserId: caller.userId, source: 'assistant',
      }),
    }),
  }),
  list_content: tool({
    description:
      "List this team's documents, one row per canonical id in id order: content type, collection, whether it is published or archived, " +
      `whether it has a draft and which of its locales are unpublished (\`dirtyLocales\`). Pages of \`pageSize\` (default ${LIST_PAGE.fallback}, at most ${LIST_PAGE.max}); pass \`nextAfter\` as \`after\` for the next.`,
    requires: [],
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    input: ListInput,
    output: DocumentList,
    run: async ({ db, caller }, args) => await listDocuments(db, caller.teamId, { collection: args.collection, after: args.after, pageSize: args.pageSize ?? LIST_PAGE.fallback }) as Record<string, unknown>,
  }),
  get_content: tool({
    description: 'Read one document of this team as it is stored now: the live canonical, or its draft, scheduled or snapshot sibling.',
    requires: [],
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    input: GetInput,
    output: t.Object({ document: t.Union([DocumentView, ActivityView]) }),
    run: async ({ db, caller }, args) => ({ document: present(await readDocument(db, caller.teamId, args.id)) }),
  }),
} as const

export type ToolName = keyof typeof TOOLS

/** The tools `caller` may call (tools/list shows only those). */
export const toolsFor = (caller: Caller): ToolName[] =>
  (Object.keys(TOOLS) as ToolName[]).filter((name) => TOOLS[name].requires.every((c) => caller.capabilities.has(c)))

/**
 * Runs tool `name` with `args` for the caller. Wrong arguments and refusals (a missing
 * capability, an unknown document, a lock held too long) are answers with the api's error codes,
 * for the assistant to read and correct, not protocol errors. An unknown tool name is the
 * caller's to check first.
 */
export async function callTool(ctx: ToolContext, name: ToolName, args: unknown): Promise<ToolOutcome> {
  const def = TOOLS[name] as Tool<TSchema>
  const missing = def.requires.filter((c) => !ctx.caller.capabilities.has(c))
  if (missing.length > 0) return { error: 'forbidden', message: `Missing capability: ${missing.join(', ')}.` }
  const wrong = Value.Errors(def.input, args ?? {}).First()
  if (wrong) return { error: 'invalid_body', message: `${wrong.path ? `Argument \`${wrong.path.slice(1)}\`` : 'The arguments'}: ${expectation(wrong)}.` }
  try {
    // A tool that writes waits for another process's write lock on timers, before each item (core/batch.ts).
    return { ok: await def.run(ctx, args ?? {}) }
  } catch (e) {
    if (e instanceof AppError) return { error: e.code, message: e.message }
    // As the routes answer it (api/http/error-mapping.ts `errorResponse`), logged the same way.
    if (isBusy(e)) return busyAnswer(ctx.log.child({ tool: name }))
    ctx.log.error({ err: e, tool: name }, 'assistant tool failed')
    return { error: 'internal', message: 'Internal error.' }
  }
}
