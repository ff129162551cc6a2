/**
 * `serveApp`: the app on a socket (api/main.ts), with Bun's server options set for it.
 */
import { testSendTimeoutMs } from '../../core/webhooks/deliveries'

/**
 * Bun's own request-size cap. Bun answers a larger body with a bare 413 (no JSON, connection
 * closed) before any of our code runs, so it sits well above MAX_BODY_BYTES: every body between
 * the two gets our JSON `413 payload_too_large`, and the cap still bounds what a chunked upload
 * can make the server hold.
 */
export const serverBodyCap = (maxBodyBytes: number) => Math.max(4 * maxBodyBytes, 8 * 1024 * 1024)

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
