/**
 * The `error-mapping` plugin: one global `onError` that turns every thrown error into the body
 * spec.md and contract.md fix for it, and a known path under another method into a 405.
 */
import { Elysia } from 'elysia'
import { match, P } from 'ts-pattern'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { AppError, BatchError, busyAnswer, echoList, ProblemError } from '../../core/errors'
import { expectation, type SchemaError } from '../../core/schema-errors'
import { MAX_CANONICAL_ID_LENGTH, MAX_ID_LENGTH } from '../../core/documents/ids'
import type { Logger } from '../../core/log'
import { busyReason, isBusy, isUniqueViolation } from '../../db/client'

/** A JSON answer, as every plugin of api/http/ writes one. */
export const json = (status: number, body: unknown, type = 'application/json') =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': `${type}; charset=utf-8` } })

/**
 * Maps every thrown error to the body spec.md and contract.md fix for it. `log` carries the
 * request's method and path, so a logged failure says which request it was.
 */
export function errorResponse(error: unknown, code: string | number, log: Logger): Response {
  return match({ error, code })
    .with({ error: P.instanceOf(AppError) }, ({ error }) => {
      const res = json(error.status, { error: error.code, message: error.message })
      // RFC 6750 3: a 401 names the scheme it wants (MCP clients read it before trying OAuth discovery).
      if (error.status === 401) res.headers.set('www-authenticate', 'Bearer')
      return res
    })
    .with({ error: P.instanceOf(BatchError) }, ({ error }) => json(error.status, [error.item]))
    .with({ error: P.instanceOf(ProblemError) }, ({ error }) =>
      json(400, { title: error.title, status: 400, errors: error.errors }, 'application/problem+json'),
    )
    // Elysia wraps what a parser throws; our own parser's refusal (core/body.ts) says why itself.
    .with({ code: 'PARSE', error: { cause: P.instanceOf(AppError) } }, ({ error }) => errorResponse(error.cause, 'UNKNOWN', log))
    .with({ code: 'PARSE' }, () => json(400, { error: 'malformed_json', message: 'The request body is not valid JSON.' }))
    .with({ code: 'VALIDATION', error: P.when(isResponseCheck) }, ({ error }) => {
      // The handler produced what its declared response schema does not allow: our bug, not the
      // caller's. Where and what was expected only: the value (and Elysia's message, which
      // repeats it) may be a webhook's full secret, which a create or update answers with.
      const first = (error as { all?: { path?: string; message?: string }[] }).all?.[0]
      log.error({ at: first?.path ?? '', expected: first?.message ?? '' }, 'response does not match its declared schema')
      return json(500, { error: 'internal', message: 'Internal error.' })
    })
    // A path segment that is no percent-encoded UTF-8 (`/webhooks/%FF`) reaches the schema
    // undecoded (no string): it names no webhook or event, as any unknown id.
    .with({ code: 'VALIDATION', error: P.when(isUndecodablePathSegment) }, () => json(404, { error: 'not_found', message: 'Not found: a path segment is not valid percent-encoded UTF-8.' }))
    .with({ code: 'VALIDATION' }, ({ error }) => json(400, { error: namedFailure(error) ?? 'invalid_body', message: validationMessage(error) }))
    .with({ code: 'NOT_FOUND' }, () => json(404, { error: 'not_found', message: 'No such route.' }))
    // Another process held the write lock for longer than busy_timeout (a long seed), or on
    // PostgreSQL a lock, timeout, deadlock or lost connection (db/errors.ts): a known, passing
    // condition, for the client to retry, not an internal error. The write that waited did not
    // happen (in a batch, the items before it did).
    .when(({ error }) => isBusy(error), ({ error }) => {
      log.warn({ reason: busyReason(error) }, 'database busy or unreachable: answered 503')
      const res = json(503, busyAnswer(log))
      res.headers.set('retry-after', '1')
      return res
    })
    // A key another write took first, left after db/pg/handle.ts ran the transaction again: the
    // caller's view is stale, as with a change vector that moved on.
    .when(({ error }) => isUniqueViolation(error), () => json(409, { error: 'conflict', message: 'Another write took this key first; re-read and retry.' }))
    .otherwise(({ error }) => {
      log.error({ err: error }, 'unhandled error')
      return json(500, { error: 'internal', message: 'Internal error.' })
    })
}

/**
 * The global error handler. `routes` reads the whole app's routes when an error happens (the
 * app is not built yet when this plugin is), for the 405's `Allow`.
 */
export function errorMapping(log: Logger, routes: () => readonly { method: string; path: string }[]) {
  return new Elysia({ name: 'error-mapping' }).onError({ as: 'global' }, ({ error, code, request }) => {
    const url = new URL(request.url)
    // A known path under another method is 405 with the methods it takes (RFC 9110 15.5.6), not "no such route".
    const allow = code === 'NOT_FOUND' ? allowedMethods(routes(), url.pathname) : []
    if (allow.length > 0 && !allow.includes(request.method)) {
      const res = json(405, { error: 'method_not_allowed', message: `${request.method} is not allowed here; use ${allow.join(' or ')}.` })
      res.headers.set('allow', allow.join(', '))
      return res
    }
    // The path, not the query (ids only, but nothing a log needs); never a header (tokens).
    return errorResponse(error, code, log.child({ method: request.method, path: url.pathname }))
  })
}

const isResponseCheck = (error: unknown) => (error as { type?: string }).type === 'response'
/** A webhook or event id in the path that did not decode (a content type name, which a PUT creates, stays a wrong name). */
const isUndecodablePathSegment = (error: unknown) => {
  const { type, all } = error as { type?: string; all?: { path?: string; value?: unknown }[] }
  const first = all?.[0]
  return type === 'params' && first !== undefined && (first.path === '/id' || first.path === '/eventId') && typeof first.value !== 'string'
}

/**
 * Parameters the schemas declare required (so the OpenAPI document and generated clients say
 * so) whose absence spec.md names with its own code: a missing id is `missing_id` whether it
 * goes in the query or the body, a missing version reference `bad_reference`.
 */
const MISSING: Record<string, string> = { '/id': 'missing_id', '/documentId': 'missing_id', '/version': 'bad_reference' }
/**
 * Parameters whose invalid text has a code of its own: an id string the schema refuses (over
 * 512 characters) is `invalid_id` like any other malformed id (docs/api/content.md#ids), a snapshot
 * name over 200 characters `invalid_name`, a webhook secret over 500 `invalid_secret` like a
 * short one; a value of the wrong JSON type stays `invalid_body`.
 */
const INVALID: Record<string, string> = { '/id': 'invalid_id', '/documentId': 'invalid_id', '/eventType': 'invalid_event_type', '/name': 'invalid_name', '/secret': 'invalid_secret' }

function namedFailure(error: unknown): string | undefined {
  const { type, all } = error as { type?: string; all?: { path?: string; type?: number; value?: unknown }[] }
  const first = all?.[0]
  if ((type !== 'body' && type !== 'query') || !first?.path) return undefined
  if (first.type === ValueErrorType.ObjectRequiredProperty) return MISSING[first.path]
  // An unknown property that happens to be called `id` is a wrong body, not a wrong id.
  if (first.type === ValueErrorType.ObjectAdditionalProperties) return undefined
  return typeof first.value === 'string' ? INVALID[first.path] : undefined
}

function validationMessage(error: unknown): string {
  const { type, all } = error as { type?: string; all?: SchemaError[] }
  const first = all?.[0]
  // A required parameter left out is said as the routes say an empty one (`?id=`), not in the validator's words.
  if (first?.type === ValueErrorType.ObjectRequiredProperty && first.path && (type === 'query' || type === 'body')) {
    const name = first.path.slice(1)
    return type === 'query' && !name.includes('/') ? `Query parameter \`${name}\` is required.` : `\`${name}\` is required.`
  }
  // An id the schema's length cap refuses is said as the routes say other malformed ids, with the
  // limit that matters (a document id's 480), not only the cap on every id string (512).
  if (first?.type === ValueErrorType.StringMaxLength && (type === 'body' || type === 'query') && (first.path === '/id' || first.path === '/documentId')) {
    return `\`${first.path.slice(1)}\` is too long: a document id has at most ${MAX_CANONICAL_ID_LENGTH} characters, a snapshot id at most ${MAX_ID_LENGTH}.`
  }
  // The path holds the client's own keys (an unknown 900 KB key): cut like every other echo.
  return first ? `Invalid request: ${first.path ? echoList([first.path]) : 'body'} ${expectation(first)}`.trim() : 'Invalid request.'
}

const routeMatchers = new WeakMap<readonly unknown[], { method: string; path: RegExp }[]>()

/** The methods the routes take at `path` (a route parameter matches one segment, a trailing slash is allowed), sorted. */
export function allowedMethods(routes: readonly { method: string; path: string }[], path: string): string[] {
  let matchers = routeMatchers.get(routes)
  if (!matchers) {
    const segment = (part: string) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    matchers = routes.map((r) => ({ method: r.method, path: new RegExp(`^${r.path.split('/').map(segment).join('/')}/?$`) }))
    routeMatchers.set(routes, matchers)
  }
  const methods = new Set(matchers.filter((m) => m.path.test(path)).map((m) => m.method))
  if (methods.has('GET')) methods.add('HEAD') // Elysia answers HEAD for every GET route
  return [...methods].sort()
}
