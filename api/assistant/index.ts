/**
 * `POST /mcp/{activeTeam}`: an MCP server (Streamable HTTP, stateless, JSON answers) for AI
 * assistants, with the tools of tools.ts. The official SDK speaks the protocol (initialize,
 * tools/list, tools/call, versions, JSON-RPC errors); this file only connects it to a request:
 * the bearer token and the team of the route are checked as on every other route, and each
 * request gets a server of its own, bound to its caller.
 */
import { Elysia, t } from 'elysia'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, ErrorCode, InitializeRequestSchema, ListToolsRequestSchema, PingRequestSchema, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import { authGuard } from '../http/auth-guard'
import { authorize } from '../../core/auth'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../http/schemas'
import { AppError } from '../../core/errors'
import { JsonRpcAnswer, JsonRpcMessage } from './model'
import { callTool, TOOLS, toolsFor, type ToolContext, type ToolName } from './tools'

const isTool = (name: string): name is ToolName => Object.hasOwn(TOOLS, name)

/** What `tools/list` says of each tool, built once (the schemas are static). */
const LISTED = Object.fromEntries(Object.entries(TOOLS).map(([name, tool]) => [name, {
  name,
  description: tool.description,
  // TypeBox schemas are JSON Schema already; JSON drops TypeBox's symbol keys.
  inputSchema: JSON.parse(JSON.stringify(tool.input)),
  outputSchema: JSON.parse(JSON.stringify(tool.output)),
  annotations: { ...tool.annotations, openWorldHint: false },
}])) as Record<ToolName, McpTool>

/** An MCP server for one request's caller. */
function mcpServer(ctx: ToolContext): Server {
  const server = new Server(
    { name: 'content-service', version: '0.1.0' },
    { capabilities: { tools: {} }, instructions: `Content of team ${ctx.caller.teamId}: list and read documents, and publish them.` },
  )
  // Only what this caller may call: an assistant should not offer a publish its user cannot make.
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolsFor(ctx.caller).map((name) => LISTED[name]) }))
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    // A plain error with a code: McpError would put "MCP error -32602: " into the message, and the SDK client adds it again.
    if (!isTool(params.name)) throw Object.assign(new Error(`Unknown tool: ${params.name.slice(0, 64)}. Tools: ${Object.keys(TOOLS).join(', ')}.`), { code: ErrorCode.InvalidParams })
    const outcome = await callTool(ctx, params.name, params.arguments)
    if ('ok' in outcome) return { content: [{ type: 'text', text: JSON.stringify(outcome.ok) }], structuredContent: outcome.ok }
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(outcome) }] }
  })
  return server
}

/**
 * What the schema cannot say in the api's own codes, before it is checked: the SDK would answer
 * these in JSON-RPC's shape (a fractional `id` as a parse error, a `tools/call` without a tool
 * name as an internal error with its validator's dump), and a long string `id` would be the
 * schema's `invalid_id`, the code of document ids.
 */
function messageProblem(body: unknown): void {
  const { id, method, params } = (body ?? {}) as { id?: unknown; method?: unknown; params?: { name?: unknown } }
  const bad = (message: string) => new AppError(400, 'invalid_body', message)
  // A whole number past 2^53 has already lost digits in the JSON parser: its answer would carry another id.
  if (typeof id === 'number' && !Number.isSafeInteger(id)) throw bad('`id` must be a string or a whole number within ±(2^53 - 1) (a larger one loses digits in JSON parsers; send it as a string).')
  if (method === undefined && body !== null && typeof body === 'object' && ('result' in body || 'error' in body)) {
    throw bad('This server sends no requests, so it takes no JSON-RPC responses: a message needs `method`.')
  }
  if (typeof id === 'string' && id.length > 200) throw bad('`id` must be at most 200 characters.')
  if (method === 'tools/call' && typeof params?.name !== 'string') throw bad('`params.name` (the tool to call) is required for tools/call, a string.')
  // JSON-RPC would call it an invalid request; the SDK answers a parse error (-32700).
  const meta = (params as { _meta?: unknown } | undefined)?._meta
  if (meta !== undefined && (meta === null || typeof meta !== 'object' || Array.isArray(meta))) throw bad('`params._meta` must be an object.')
}

/** The SDK's own schemas of the requests this server answers (see `invalidParams`). */
const REQUESTS: Record<string, { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }> = {
  initialize: InitializeRequestSchema, ping: PingRequestSchema, 'tools/list': ListToolsRequestSchema, 'tools/call': CallToolRequestSchema,
}

/**
 * A request whose params do not have its method's shape (`initialize` with a numeric
 * `protocolVersion`, `tools/list` with a numeric `cursor`): the SDK answers `-32603` (internal
 * error) with its validator's dump. JSON-RPC's answer is `-32602` (invalid params): this one
 * names the first field at fault. Notifications get no answer, so they are left to the SDK.
 */
function invalidParams(body: { id?: string | number; method: string }): Response | null {
  const schema = Object.hasOwn(REQUESTS, body.method) ? REQUESTS[body.method] : undefined
  if (body.id === undefined || !schema) return null
  const issue = schema.safeParse(body).error?.issues[0]
  if (!issue) return null
  const where = issue.path.map(String).join('.')
  return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${where ? `${where}: ` : ''}${issue.message}` } })
}

export function assistantRoutes({ db, metrics, log }: AppDeps) {
  return new Elysia({ name: 'assistant', detail: { tags: ['assistant'] } }).use(authGuard(db)).post(
    '/mcp/:activeTeam',
    async ({ body, request, caller }) => {
      const refused = invalidParams(body)
      if (refused) return refused
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      const url = new URL(request.url)
      await mcpServer({ db, metrics, log: log.child({ method: 'POST', path: url.pathname }), caller }).connect(transport)
      // Answers are always JSON here (no stream), so any Accept is served: a client generated from
      // the OpenAPI document sends `application/json` only, where the SDK would insist on both types.
      const headers = new Headers(request.headers)
      headers.set('accept', 'application/json, text/event-stream')
      // The app took any JSON media type (`application/vnd.acme+json`); the SDK takes only this one.
      headers.set('content-type', 'application/json')
      // The app has read and checked the body already (core/body.ts): the transport takes it parsed.
      return transport.handleRequest(new Request(url.href, { method: 'POST', headers }), { parsedBody: body })
    },
    {
      requires: ['EditContent'],
      // Before the schema's generic "Expected object", after the caller's check (this hook runs
      // ahead of `requires`, so it authorises first itself: an outsider gets 403 for any body).
      async transform({ body, request, params }) {
        await authorize(db, request, (params as { activeTeam: string }).activeTeam, ['EditContent'])
        if (Array.isArray(body)) throw new AppError(400, 'invalid_body', 'Send one JSON-RPC message per request: batches are not taken (MCP 2025-06-18 dropped them).')
        messageProblem(body)
      },
      params: t.Object({ activeTeam: t.String({ maxLength: 200 }) }),
      body: JsonRpcMessage,
      response: {
        200: JsonRpcAnswer,
        202: t.Void({ description: 'A notification, accepted (no body)' }),
        400: t.Union([ErrorBody, JsonRpcAnswer], { description: '`{error, message}` for malformed JSON or a body that is not one JSON-RPC message; a JSON-RPC error for a protocol version or message the server does not take' }),
        401: ErrorBody,
        403: ErrorBody,
      },
      detail: {
        summary: 'MCP server for AI assistants (Streamable HTTP, stateless, JSON answers): tools publish_content, list_content and get_content',
        description: '`publish_content` needs `ChangeLiveContent` too: `tools/list` shows only the tools the caller may call, and a call without it answers `isError` with `forbidden`.',
      },
    },
  )
}
