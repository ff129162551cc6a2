/**
 * The `openapi` plugin: `/swagger/json`, the OpenAPI document of every route (normalised by
 * openapi-document.ts), and `/swagger`, its reference page (Scalar), whose script the api serves
 * itself from the pinned `@scalar/api-reference` package: the page renders with no internet.
 */
import { dirname, join } from 'node:path'
import { Elysia } from 'elysia'
import { swagger } from '@elysiajs/swagger'
import { normalizeOpenApi } from './openapi-document'

/** Where the page loads Scalar's bundle from: this api, under the public `/swagger` prefix. */
export const SCALAR_SCRIPT_PATH = '/swagger/assets/scalar.js'

/** The browser bundle of the installed `@scalar/api-reference` (its `browser` entry, not exported to imports). */
const scalarBundle = () => join(dirname(Bun.resolveSync('@scalar/api-reference/style.css', import.meta.dir)), 'browser', 'standalone.js')

export function openapi() {
  const bundle = scalarBundle()
  // 4.3 MB as it is, about a quarter gzipped: compressed once, on the first request that takes it.
  let gzipped: Uint8Array | undefined
  return new Elysia({ name: 'openapi' })
    // The hook lives in this instance so that it runs for the swagger routes only.
    .onAfterHandle(({ path, response }) => (path === '/swagger/json' ? normalizeOpenApi(response as Record<string, unknown>) : undefined))
    .get(SCALAR_SCRIPT_PATH, async ({ request }) => {
      // The file changes only with the package version the lockfile pins.
      const headers: Record<string, string> = { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400', vary: 'accept-encoding' }
      if (!/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(Bun.file(bundle), { headers })
      gzipped ??= Bun.gzipSync(await Bun.file(bundle).bytes())
      return new Response(gzipped, { headers: { ...headers, 'content-encoding': 'gzip' } })
    }, { detail: { hide: true } })
    .use(swagger({
      path: '/swagger',
      scalarCDN: SCALAR_SCRIPT_PATH,
      // Scalar's defaults fetch its web fonts from its own host and send telemetry: neither, so
      // nothing on the page reaches past this api.
      scalarConfig: { withDefaultFonts: false, telemetry: false } as Record<string, unknown>,
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
    }))
}
