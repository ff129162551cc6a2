/**
 * The editor app (web/): served by the api itself, with no internet needed. `web/index.html` is
 * an HTML import; Bun's own bundler turns it (React, TypeScript, CSS) into a few files on the
 * first request for the app, kept in memory for the life of the process. The app owns `/`,
 * `/favicon.ico` and everything under `/app/`: an unknown `/app/...` path answers the app
 * (its router shows the screen or says "not found"), every other path stays the API's, with
 * its JSON errors. These answers need no bearer token: they hold no data.
 */
import { Elysia } from 'elysia'
import index from '../../web/index.html'
import demo from '../../db/seed/demo.json'
import { hashToken } from '../../core/auth'
import { membershipOf, userTokenHash } from '../../db/queries/users'
import type { AppDeps } from '../deps'

/**
 * No inline script, nothing from another origin, never framed. Inline styles stay allowed: the
 * dialog library sets them (a style cannot run code).
 */
export const APP_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
  "connect-src 'self'", "font-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ')

export const ASSET_PREFIX = '/app/assets/'

interface Asset { body: Uint8Array; type: string; etag: string }
interface Bundle { html: Uint8Array; assets: Map<string, Asset> }

let built: Promise<Bundle> | null = null

/** Bundles the app once per process (minified; asset names carry their content hash). */
function bundle(): Promise<Bundle> {
  built ??= (async () => {
    const result = await Bun.build({ entrypoints: [index.index], minify: true, publicPath: ASSET_PREFIX, target: 'browser', define: { 'process.env.NODE_ENV': '"production"' } })
    if (!result.success) throw new AggregateError(result.logs, 'the editor app did not build')
    const assets = new Map<string, Asset>()
    let html: Uint8Array | null = null
    for (const out of result.outputs) {
      const body = new Uint8Array(await out.arrayBuffer())
      const name = out.path.replace(/^.*\//, '')
      if (name.endsWith('.html')) html = body
      else assets.set(name, { body, type: out.type, etag: `"${out.hash ?? Bun.hash(body).toString(36)}"` })
    }
    if (!html) throw new Error('the editor app build produced no HTML page')
    return { html, assets }
  })()
  built.catch(() => { built = null })
  return built
}

const icon = Bun.file(new URL('../../web/favicon.svg', import.meta.url).pathname)

/** The app's page: never cached (it names the current asset files), never framed. */
const page = (html: Uint8Array) =>
  new Response(html as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': APP_CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache', 'referrer-policy': 'no-referrer' } })

const jsonError = (status: number, error: string, message: string) =>
  new Response(JSON.stringify({ error, message }), { status, headers: { 'content-type': 'application/json; charset=utf-8' } })

/**
 * The demo tokens of db/seed/demo.json that sign in on this database right now: a user of the
 * demo file whose stored token hash is still the demo token's, and who is a member of its team.
 * On any other database (or after the demo tokens were changed) the list is empty, so the sign-in
 * page names only tokens that are public already (README) and work here.
 */
export async function demoTokens(db: AppDeps['db']) {
  const found = await Promise.all(demo.teams.flatMap((team) => team.users.map(async (u) => {
    const user = await userTokenHash(db, u.id)
    const member = user?.tokenHash === hashToken(u.token) && await membershipOf(db, team.id, u.id)
    return member ? [{ userId: u.id, token: u.token, teamId: team.id, capabilities: u.capabilities }] : []
  })))
  return found.flat()
}

/** Answers the app's paths; `undefined` hands every other request on to the API. */
async function answer(db: AppDeps['db'], request: Request): Promise<Response | undefined> {
  const { pathname } = new URL(request.url)
  const isApp = pathname === '/' || pathname === '/favicon.ico' || pathname === '/app' || pathname.startsWith('/app/')
  if (!isApp) return undefined
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response(JSON.stringify({ error: 'method_not_allowed', message: `${request.method} is not allowed here; use GET or HEAD.` }), { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'application/json; charset=utf-8' } })
  }
  if (pathname === '/favicon.ico') return new Response(icon, { headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' } })
  if (pathname === '/app/demo-tokens') return Response.json(await demoTokens(db), { headers: { 'cache-control': 'no-store' } })
  const { html, assets } = await bundle()
  if (pathname.startsWith(ASSET_PREFIX)) {
    const asset = assets.get(pathname.slice(ASSET_PREFIX.length))
    if (!asset) return jsonError(404, 'not_found', 'No such file of the editor app.')
    if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers: { etag: asset.etag } })
    // Names carry their content hash: a file never changes under its name.
    return new Response(asset.body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': asset.type, etag: asset.etag, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' } })
  }
  return page(html)
}

/** The editor app's plugin; mounted before the API's own request hooks, so the app needs no token. */
export function webApp({ db }: AppDeps) {
  return new Elysia().onRequest(({ request }) => answer(db, request))
}

/** The app's files as built (for the first-load size figure and its test). */
export async function appFiles() {
  const { html, assets } = await bundle()
  return { html: new TextDecoder().decode(html), assets }
}
