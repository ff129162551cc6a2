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
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { authGuard } from '../auth'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../content/model'
import { callTool, TOOLS, type ToolContext, type ToolName } from './tools'

const isTool = (name: string): name is ToolName => Object.hasOwn(TOOLS, name)

/** An MCP server for one request's caller. */
function mcpServer(ctx: ToolContext): Server {
  const server = new Server(
    { name: 'content-service', version: '0.1.0' },
    { capabilities: { tools: {} }, instructions: `Content of team ${ctx.caller.teamId}: read documents and publish them.` },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.entries(TOOLS).map(([name, def]) => ({
      name,
      description: def.description,
      // TypeBox schemas are JSON Schema already; JSON drops TypeBox's symbol keys.
      inputSchema: JSON.parse(JSON.stringify(def.input)),
      outputSchema: JSON.parse(JSON.stringify(def.output)),
      annotations: { readOnlyHint: def.requires.length === 0, destructiveHint: false, openWorldHint: false },
    })),
  }))
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
    if (!isTool(params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name.slice(0, 64)}. Tools: ${Object.keys(TOOLS).join(', ')}.`)
    const outcome = callTool(ctx, params.name, params.arguments)
    if ('ok' in outcome) return { content: [{ type: 'text', text: JSON.stringify(outcome.ok) }], structuredContent: outcome.ok }
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(outcome) }] }
  })
  return server
}

export function assistantRoutes({ db, metrics }: AppDeps) {
  return new Elysia({ name: 'assistant', detail: { tags: ['assistant'] } }).use(authGuard(db)).post(
    '/mcp/:activeTeam',
    async ({ body, request, caller }) => {
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      await mcpServer({ db, metrics, caller }).connect(transport)
      // The app has read and checked the body already (api/body.ts): the transport takes it parsed.
      return transport.handleRequest(request, { parsedBody: body })
    },
    {
      requires: ['EditContent'],
      params: t.Object({ activeTeam: t.String({ maxLength: 200 }) }),
      body: t.Unknown({ description: 'A JSON-RPC 2.0 message or batch of the Model Context Protocol' }),
      response: { 200: t.Unknown({ description: 'The JSON-RPC answer' }), 202: t.Unknown({ description: 'A notification, accepted' }), 401: ErrorBody, 403: ErrorBody },
      detail: {
        summary: 'MCP server for AI assistants (Streamable HTTP, stateless): tools publish_content and get_content',
        description: 'Send `Accept: application/json, text/event-stream` as MCP clients do. `publish_content` needs `ChangeLiveContent` too; without it the tool answers `isError` with `forbidden`.',
      },
    },
  )
}
