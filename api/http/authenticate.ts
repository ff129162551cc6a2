/**
 * The `authenticate` plugin: every route but the public ones needs a known bearer token, checked
 * before anything parses or validates a body, so an anonymous caller learns nothing about
 * bodies. What a caller may do in a team is the route's `requires` option (auth-guard.ts).
 */
import { Elysia } from 'elysia'
import { authenticateRequest } from '../../core/auth'
import type { Logger } from '../../core/log'
import type { Db } from '../../db/client'
import { errorResponse } from './error-mapping'

/**
 * Routes that need no bearer token: the liveness check, the API description and its reference
 * page (a browser or a client generator fetches them without one; they hold no data), and
 * `/metrics` only when METRICS_PUBLIC=true.
 */
export const publicPaths = (metricsPublic: boolean) => (metricsPublic ? /^\/(health|metrics|swagger)(\/|$)/ : /^\/(health|swagger)(\/|$)/)

/**
 * Refuses every request without a known bearer token (401), but to the public paths. The editor
 * app's pages and assets are answered before this check (api/web), as a browser loads them before sign-in.
 */
export function authenticate(deps: { db: Db; log: Logger; metricsPublic: boolean }) {
  const open = publicPaths(deps.metricsPublic)
  return new Elysia({ name: 'authenticate', seed: deps.metricsPublic }).onRequest(async ({ request }) => {
    const path = new URL(request.url).pathname
    if (open.test(path)) return
    try {
      await authenticateRequest(deps.db, request)
    } catch (e) {
      return errorResponse(e, 'UNKNOWN', deps.log)
    }
  })
}
