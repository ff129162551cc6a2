/**
 * What a schema refusal says of the value it refused, shared by the routes (api/http/error-mapping.ts), the MCP
 * tools and the seed command, so each names the same expectation for the same schema.
 */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ValueErrorType } from '@sinclair/typebox/errors'

export type SchemaError = { path?: string; message?: string; type?: number; value?: unknown; schema?: object }
type UnionOption = TSchema & { const?: unknown; type?: string }

/**
 * TypeBox says "Expected union value" for every union; the caller needs the choices, e.g.
 * `must be one of "content.published", "content.unpublished", "site.changed"` or `must be string or null`.
 */
export function expectation(e: SchemaError): string {
  const options = e.type === ValueErrorType.Union ? (e.schema as { anyOf?: UnionOption[] } | undefined)?.anyOf : undefined
  if (!options?.length) return e.message ?? ''
  // A value of one of the union's types broke that type's own limit (a 201-character name for
  // string-or-null): that limit is the message, not the list of types.
  const sameType = options.find((o) => o.const === undefined && o.type === (e.value === null ? 'null' : typeof e.value))
  const inner = sameType && Value.Errors(sameType, e.value).First()
  if (inner) return inner.message
  if (options.every((o) => o.const !== undefined)) return `must be one of ${options.map((o) => JSON.stringify(o.const)).join(', ')}`
  return `must be ${[...new Set(options.map((o) => (o.const !== undefined ? JSON.stringify(o.const) : (o.type ?? 'another value'))))].join(' or ')}`
}

