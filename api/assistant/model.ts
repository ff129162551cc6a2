/** The MCP route's JSON-RPC shapes (OpenAPI `JsonRpcRequest`, `JsonRpcResponse`). */
import { Type as t } from '@sinclair/typebox'

/**
 * One JSON-RPC message, no batch: MCP 2025-06-18 dropped batches, and a batch of 100 publishes
 * of 100 ids each would step around the publish limit of 100 ids (docs/api/overview.md#limits).
 */
export const JsonRpcMessage = t.Object({
  jsonrpc: t.Literal('2.0'),
  method: t.String({ maxLength: 200 }),
  id: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Integer()])),
  params: t.Optional(t.Object({ arguments: t.Optional(t.Record(t.String(), t.Unknown())) }, { additionalProperties: true })),
}, { additionalProperties: false, title: 'JsonRpcRequest', description: 'One JSON-RPC 2.0 request or notification of the Model Context Protocol (no batches)' })

export const JsonRpcAnswer = t.Object({
  jsonrpc: t.Literal('2.0'),
  id: t.Union([t.String(), t.Number(), t.Null()]),
  result: t.Optional(t.Record(t.String(), t.Unknown())),
  error: t.Optional(t.Object({ code: t.Integer(), message: t.String(), data: t.Optional(t.Unknown()) })),
}, { title: 'JsonRpcResponse', description: 'The JSON-RPC answer: `result`, or `error` (a protocol error; a tool that refuses answers a `result` with `isError: true`)' })
