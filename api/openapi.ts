/**
 * Post-processing of the OpenAPI document that `@elysiajs/swagger` generates from the routes'
 * TypeBox schemas, so that generated clients and strict validators accept it:
 * - it is declared OpenAPI 3.1, whose schemas are JSON Schema: TypeBox's `const`, `type: "null"`
 *   and `patternProperties` are valid there (the plugin says 3.0.3, where they are not);
 * - every response gets a `description` (required) and only its `content` and `headers`: the
 *   plugin also copies array and union keywords (`items`, `anyOf`, ...) onto the response object;
 * - bodies are JSON only: the plugin offers `multipart/form-data` and `text/plain` for every
 *   body, which this API refuses; a route that declares its own media types (restore's
 *   `application/problem+json`) keeps them.
 */

/** Media types the API reads and writes. */
const MEDIA_TYPES = new Set(['application/json', 'application/problem+json', 'text/plain; version=0.0.4'])

const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  400: 'Bad request: `{error, message}`',
  401: 'Missing or unknown bearer token: `{error: "unauthorized", message}`',
  403: 'Not a member of the team, or a capability is missing: `{error: "forbidden", message}`',
  404: 'Not found',
  409: 'Conflict: the document changed meanwhile',
  413: 'Body larger than MAX_BODY_BYTES: `{error: "payload_too_large", message}`',
}

type Json = Record<string, any>

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

function response(status: string, given: Json): Json {
  const content = status === '204' ? undefined : jsonOnly(given.content)
  return {
    description: given.description || STATUS_TEXT[status] || 'Response',
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
      const requestContent = jsonOnly(op.requestBody?.content)
      paths[path][method] = {
        ...op,
        ...(op.requestBody ? { requestBody: { ...op.requestBody, ...(requestContent ? { content: requestContent } : {}) } } : {}),
        responses: Object.fromEntries(Object.entries<Json>(op.responses ?? {}).map(([status, r]) => [status, response(status, r)])),
      }
    }
  }
  return { ...doc, openapi: '3.1.0', paths }
}
