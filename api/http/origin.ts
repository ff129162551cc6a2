/**
 * The `origin` plugin: the MCP route's `Origin` check, before the bearer token is looked at (the
 * MCP transport spec: an invalid Origin is 403).
 */
import { Elysia } from 'elysia'
import { AppError } from '../../core/errors'
import type { Logger } from '../../core/log'
import { errorResponse } from './error-mapping'

/** Checks `Origin` on every `/mcp/...` request; no other route reads it. */
export function origin(log: Logger) {
  return new Elysia({ name: 'origin' }).onRequest(({ request }) => {
    if (!new URL(request.url).pathname.startsWith('/mcp/')) return
    try {
      checkOrigin(request)
    } catch (e) {
      return errorResponse(e, 'UNKNOWN', log)
    }
  })
}

/**
 * The MCP transport spec: servers MUST validate `Origin`. A request with an `Origin` must come
 * from this very host (the `Host` it was sent to); clients outside a browser send none. A
 * DNS-rebound page passes (its origin names the host it reached); it has no bearer token, which
 * is what protects this route, as every other. The api sends no CORS headers, so a page on
 * another origin could not read an answer anyway.
 */
export function checkOrigin(request: Request): void {
  const origin = request.headers.get('origin')
  if (origin === null) return
  let host: string | null = null
  try {
    const url = new URL(origin)
    if (url.protocol === 'http:' || url.protocol === 'https:') host = url.host
  } catch {
    // `null` (a sandboxed or file page) and anything else that is not an origin stay refused.
  }
  if (host === null || host !== requestHost(request, origin)) {
    throw new AppError(403, 'forbidden', 'This MCP server answers browser pages of its own origin only (Origin must match Host); MCP clients outside a browser send no Origin.')
  }
}

/** The `Host` the request was sent to, as an origin of the same scheme spells it (`localhost:80` is `localhost` for http). */
function requestHost(request: Request, origin: string): string | null {
  const host = request.headers.get('host') ?? new URL(request.url).host
  try {
    return new URL(`${new URL(origin).protocol}//${host}`).host
  } catch {
    return null
  }
}

