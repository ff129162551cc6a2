/**
 * `createApp(deps)`: the whole HTTP API without `listen`, so tests call `app.handle()`. One
 * plugin per concern (api/http/), then the features' routes.
 */
import { Elysia } from 'elysia'
import type { AppDeps } from './deps'
import { redirect } from './http/redirect'
import { origin } from './http/origin'
import { authenticate } from './http/authenticate'
import { queryKeys } from './http/query-keys'
import { jsonOnly } from './http/json-only'
import { bodyLimit } from './http/body-limit'
import { errorMapping } from './http/error-mapping'
import { writeLock } from './http/write-lock'
import { openapi } from './http/openapi'
import { contentRoutes } from './content'
import { versionRoutes } from './versions'
import { publishRoutes } from './publish'
import { opsRoutes } from './ops'
import { restoreRoutes } from './restore'
import { snapshotRoutes } from './snapshots'
import { historyRoutes } from './history'
import { webhookRoutes } from './webhooks'
import { teamRoutes } from './teams'
import { assistantRoutes } from './assistant'
import { webApp } from './web'

export { serveApp } from './http/serve'

export function createApp(deps: AppDeps) {
  // The 405's `Allow` reads the routes of the whole app, which exists only once built.
  let routes = (): readonly { method: string; path: string }[] => []
  // normalize: false so unknown properties are refused (400), not silently dropped.
  const app = new Elysia({ normalize: false })
    // Before any route, in this order (each answers alone when it refuses): a caller without a
    // valid token learns nothing about bodies (401 before 415), and only a caller with one gets
    // the query, media type and size checks. The editor app (web/) answers its own paths first:
    // its pages and assets hold no data, and a browser loads them before signing in.
    .use(webApp(deps))
    .use(redirect())
    .use(origin(deps.log))
    .use(authenticate({ db: deps.db, log: deps.log, metricsPublic: deps.config.metricsPublic }))
    .use(queryKeys())
    .use(jsonOnly())
    .use(bodyLimit(deps.config.maxBodyBytes))
    .use(errorMapping(deps.log, () => routes()))
    .use(writeLock(deps.db))
    .use(openapi())
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
  routes = () => app.routes
  return app
}

export type App = ReturnType<typeof createApp>
