/**
 * The `redirect` plugin: `/swagger/` answers 308 to `/swagger`. The reference page loads its
 * document from the relative `swagger/json`: under `/swagger/` that is `/swagger/swagger/json`, a
 * 404, and the page stays empty. One address for the page.
 */
import { Elysia } from 'elysia'

export function redirect() {
  return new Elysia({ name: 'redirect' }).onRequest(({ request }) => {
    const url = new URL(request.url)
    if (url.pathname === '/swagger/') return new Response(null, { status: 308, headers: { location: `/swagger${url.search}` } })
  })
}
