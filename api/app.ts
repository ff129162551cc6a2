/**
 * `createApp(deps)`: the whole HTTP API without `listen`, so tests call `app.handle()`.
 */
import { Elysia } from 'elysia'
import { swagger } from '@elysiajs/swagger'
import { match, P } from 'ts-pattern'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { AppError, BatchError, busyAnswer, echoList, ProblemError } from '../core/errors'
import { authenticateRequest } from '../core/auth'
import { normalizeOpenApi } from './openapi'
import { expectation, type SchemaError } from '../core/schema-errors'
import { MAX_CANONICAL_ID_LENGTH, MAX_ID_LENGTH } from '../core/documents/ids'
import { checkDepth, isJsonMediaType, isUtf8Charset, readJsonBody } from '../core/body'
import type { AppDeps } from './deps'
import { isLocked, writeLockFree } from '../db/client'
import { contentRoutes } from './content'
import { versionRoutes } from './versions'
import { publishRoutes } from './publish'
import { opsRoutes } from './ops'
import { restoreRoutes } from './restore'
import { snapshotRoutes } from './snapshots'
import { historyRoutes } from './history'
import { webhookRoutes } from './webhooks'
import { testSendTimeoutMs } from '../core/webhooks/deliveries'
import { teamRoutes } from './teams'
import { assistantRoutes, checkOrigin } from './assistant'

/**
 * Routes that need no bearer token: the liveness check, the API description (a browser or a
 * client generator fetches it without one; it holds no data), and `/metrics` only when
 * METRICS_PUBLIC=true.
 */
const publicPaths = (metricsPublic: boolean) => (metricsPublic ? /^\/(health|metrics|swagger)(\/|$)/ : /^\/(health|swagger)(\/|$)/)

const json = (status: number, body: unknown, type = 'application/json') =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': `${type}; charset=utf-8` } })

/**
 * Maps every thrown error to the body spec.md and contract.md fix for it. `log` carries the
 * request's method and path, so a logged failure says which request it was.
 */
export function errorResponse(error: unknown, code: string | number, log: AppDeps['log']): Response {
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
    // Another process held the write lock for longer than busy_timeout (a long seed): a known,
    // passing condition, for the client to retry, not an internal error. The write that waited
    // did not happen (in a batch, the items before it did).
    .when(({ error }) => isLocked(error), () => {
      const res = json(503, busyAnswer(log))
      res.headers.set('retry-after', '1')
      return res
    })
    .otherwise(({ error }) => {
      log.error({ err: error }, 'unhandled error')
      return json(500, { error: 'internal', message: 'Internal error.' })
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

/**
 * Bun's own request-size cap. Bun answers a larger body with a bare 413 (no JSON, connection
 * closed) before any of our code runs, so it sits well above MAX_BODY_BYTES: every body between
 * the two gets our JSON `413 payload_too_large`, and the cap still bounds what a chunked upload
 * can make the server hold.
 */
export const serverBodyCap = (maxBodyBytes: number) => Math.max(4 * maxBodyBytes, 8 * 1024 * 1024)

/** Whether a body stream holds more than `max` bytes; stops reading as soon as it does. */
async function exceeds(body: ReadableStream<Uint8Array>, max: number): Promise<boolean> {
  const reader = body.getReader()
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return false
      size += value.byteLength
      if (size > max) return true
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

/**
 * `raw` (a request's URL as Bun hands it over) made absolute. Bun gives the path alone when
 * `Host` is missing (an HTTP/1.0 health check, HAProxy's default) or is not a host (`a b`), and
 * a URL that does not parse when its port is out of range (`x:99999`): the app's `new URL()`
 * threw (a 500 on every route), and Elysia read no query at all. Such a request goes to `localhost`.
 */
function absoluteUrl(raw: string): string {
  const path = raw.startsWith('/') ? raw : raw.slice(Math.max(0, raw.indexOf('/', raw.indexOf('//') + 2)))
  return new URL(path.startsWith('/') ? path : '/', 'http://localhost').href
}

/**
 * The request as the app can route it. Bun hands a request without a usable `Host` over with its
 * path alone, not a URL; and Elysia 1.4 takes the path from the first `/` at index 11 or later, so
 * a `Host` of three characters or fewer (`api`, `cms`: a compose service name behind a proxy)
 * answered every route, /health too, 404. Both reach the app as `http://localhost` and the path;
 * the `Host` header stays as sent (the MCP origin check reads it).
 */
function routable(request: Request): Request {
  const url = request.url
  if (URL.canParse(url) && url.indexOf('/', url.indexOf('//') + 2) >= 11) return request
  return new Request(absoluteUrl(url), request)
}

/**
 * Seconds a connection may stay silent. Bun's default, 10 s, closed the connection of a webhook
 * test send (which answers only when the receiver has, up to WEBHOOK_TIMEOUT_MS) with an empty
 * reply, and SIGTERM then stopped the api without its answer: so the timeout plus 5 s, at most
 * Bun's limit of 255 s (a test send waits `testSendTimeoutMs`).
 */
export const idleTimeoutSeconds = (webhookTimeoutMs: number) =>
  Math.min(255, Math.max(10, Math.ceil(testSendTimeoutMs(webhookTimeoutMs) / 1000) + 5))

/**
 * Serves `app` on a socket (api/main.ts); every request reaches the app with an absolute URL
 * it can route (`routable`). `development: false`: an error that escapes the app is a bare 500, never
 * Bun's HTML page with the stack and the source (NODE_ENV may well be unset).
 */
export function serveApp(app: { fetch: (request: Request) => Response | Promise<Response> }, opts: { hostname: string; port: number; maxBodyBytes: number; webhookTimeoutMs: number }) {
  return Bun.serve({
    hostname: opts.hostname, port: opts.port, reusePort: false, development: false,
    maxRequestBodySize: serverBodyCap(opts.maxBodyBytes),
    idleTimeout: idleTimeoutSeconds(opts.webhookTimeoutMs),
    fetch: (request) => app.fetch(routable(request)),
  })
}

/** The Scalar API reference bundle `/swagger` loads from jsDelivr (docs/api/overview.md#the-openapi-document). */
export const SCALAR_VERSION = '1.72.1'

export function createApp(deps: AppDeps) {
  const max = deps.config.maxBodyBytes
  const open = publicPaths(deps.config.metricsPublic)
  const tooLarge = () => json(413, { error: 'payload_too_large', message: `The body exceeds ${max} bytes.` })
  // normalize: false so unknown properties are refused (400), not silently dropped.
  const app = new Elysia({ normalize: false })
    .onRequest(({ request }) => {
      // Authenticate before parsing or validating: an anonymous caller learns nothing about bodies.
      const url = new URL(request.url)
      // The UI page loads its document from the relative `swagger/json`: under `/swagger/` that
      // is `/swagger/swagger/json`, a 404, and the page stays empty. One address for the page.
      if (url.pathname === '/swagger/') return new Response(null, { status: 308, headers: { location: `/swagger${url.search}` } })
      if (!open.test(url.pathname)) {
        try {
          if (url.pathname.startsWith('/mcp/')) checkOrigin(request)
          authenticateRequest(deps.db, request)
        } catch (e) {
          return errorResponse(e, 'UNKNOWN', deps.log)
        }
      }
      // Every query parameter names one value: `?id=a&id=b` was read as `b`, so a PATCH could
      // land on another document than the client's first `id` said.
      const repeated = repeatedQueryKeys(url.searchParams)
      if (repeated.length > 0) {
        return json(400, { error: 'invalid_body', message: `A query parameter may be given once; repeated: ${echoList(repeated)}.` })
      }
      const length = request.headers.get('content-length')
      // Bodies are JSON only (docs/api/overview.md#request-bodies): a form or multipart body is refused, not parsed into
      // fields and stored; `APPLICATION/JSON; charset=utf-8` is JSON too.
      if (request.body && length !== '0') {
        const type = request.headers.get('content-type')
        if (!isJsonMediaType(type) || !isUtf8Charset(type)) {
          return json(415, { error: 'unsupported_media_type', message: 'Send the body as UTF-8 JSON with `Content-Type: application/json`.' })
        }
        // A compressed body is not decoded here: refused (RFC 9110 8.4.1) rather than read as
        // malformed JSON, or, when it is not really compressed, accepted under a false label.
        const coding = request.headers.get('content-encoding')?.trim().toLowerCase()
        if (coding && coding !== 'identity') {
          return json(415, { error: 'unsupported_media_type', message: 'Content-Encoding is not supported: send the body uncompressed.' })
        }
      }
      if (length !== null) return Number(length) > max ? tooLarge() : undefined
      // A chunked body declares no length: count a copy of it before the route's parser reads it.
      // A client that goes away mid-body is not our failure: a 400 (which it will not read), not an error log line.
      if (request.body) {
        return exceeds(request.clone().body!, max).then(
          (over) => (over ? tooLarge() : undefined),
          () => json(400, { error: 'malformed_json', message: 'The request body could not be read to its end.' }),
        )
      }
    })
    .onError({ as: 'global' }, ({ error, code, request }) => {
      const url = new URL(request.url)
      // A known path under another method is 405 with the methods it takes (RFC 9110 15.5.6), not "no such route".
      const allow = code === 'NOT_FOUND' ? allowedMethods(app.routes, url.pathname) : []
      if (allow.length > 0 && !allow.includes(request.method)) {
        const res = json(405, { error: 'method_not_allowed', message: `${request.method} is not allowed here; use ${allow.join(' or ')}.` })
        res.headers.set('allow', allow.join(', '))
        return res
      }
      // The path, not the query (ids only, but nothing a log needs); never a header (tokens).
      return errorResponse(error, code, deps.log.child({ method: request.method, path: url.pathname }))
    })
    // Every JSON body, under any spelling of its media type (`APPLICATION/JSON`,
    // `application/vnd.acme+json`), is read here, as strict UTF-8 (core/body.ts `readBodyText`;
    // Elysia's own parser would replace bad bytes). The restore routes read their raw text
    // themselves (api/restore/index.ts), with the same strict decoding.
    .onParse({ as: 'global' }, ({ request, contentType, route }) => {
      if (!request.body || !isJsonMediaType(contentType) || route.startsWith('/content/apply-')) return
      return readJsonBody(request)
    })
    // Right after parsing, before the schemas: a body nested absurdly deep is refused before any
    // code walks it. Elysia's validation error builder recurses into it (a stack overflow, 500,
    // after seconds of blocking every request), as would JSON.stringify and JSON Patch.
    .onTransform({ as: 'global' }, ({ body }) => checkDepth(body))
    // Last before a write's handler (after authorisation and validation): wait for another
    // process's write lock here, on timers, so that a large seed holding it does not stop
    // every other request of the api (db/client.ts `writeLockFree`). Every other method writes.
    // The MCP route is a POST for reads too: its tools that write wait themselves (api/assistant/tools.ts).
    .onBeforeHandle({ as: 'global' }, async ({ request, route }) => {
      if (request.method !== 'GET' && request.method !== 'HEAD' && !route.startsWith('/mcp/')) await writeLockFree(deps.db)
    })
    .use(
      // The plugin's document as strict validators and client generators want it (api/openapi.ts);
      // the hook lives in this small instance so that it runs for the swagger routes only.
      new Elysia().onAfterHandle(({ path, response }) => (path === '/swagger/json' ? normalizeOpenApi(response as Record<string, unknown>) : undefined)).use(swagger({
        path: '/swagger',
        // The UI page loads Scalar's bundle from jsDelivr (the plugin's default is `latest`): a
        // fixed version, so the page a team sees does not change under it. SCALAR_VERSION.
        scalarVersion: SCALAR_VERSION,
        documentation: {
          info: {
            title: 'Content service',
            version: '0.1.0',
            description: 'Published Versions, locale-selective restore and signed change webhooks.',
          },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
          security: [{ bearer: [] }],
          // Relative: the API is served where this document is (a generated client's base URL).
          servers: [{ url: '/', description: 'This service' }],
        },
      })),
    )
    .use(opsRoutes(deps))
    .use(contentRoutes(deps))
    .use(versionRoutes(deps))
    .use(publishRoutes(deps))
    .use(restoreRoutes(deps))
    .use(snapshotRoutes(deps))
    .use(historyRoutes(deps))
    .use(webhookRoutes(deps))
    .use(teamRoutes(deps))
    .use(assistantRoutes(deps))
  return app
}

/** Query parameter names that occur more than once, each named once. */
function repeatedQueryKeys(params: URLSearchParams): string[] {
  const seen = new Set<string>()
  const repeated = new Set<string>()
  for (const key of params.keys()) (seen.has(key) ? repeated : seen).add(key)
  return [...repeated]
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

export type App = ReturnType<typeof createApp>
