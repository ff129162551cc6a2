/**
 * The api serves the editor app: `/`, `/favicon.ico` and `/app/...` answer the app with its
 * Content-Security-Policy and no token; API paths keep their JSON errors; the first load stays small.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { gzipSync } from 'node:zlib'
import { createTestContext, type TestContext } from '../helpers'
import { appFiles } from '../../api/web'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

test('/ and unknown /app/ paths answer the app page with its CSP, without a token', async () => {
  for (const path of ['/', '/app', '/app/t/acme/edit?id=pages%2Fhome', '/app/no/such/screen']) {
    const res = await ctx.call('GET', path, { token: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = res.headers.get('content-security-policy')!
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-inline\'; script')
    expect(csp).toContain("frame-ancestors 'none'")
    expect(res.text).toContain('<div id="root"></div>')
    // No inline script, nothing from another origin.
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//)
  }
})

test('/favicon.ico is served', async () => {
  const res = await ctx.call('GET', '/favicon.ico', { token: null })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('image/svg+xml')
  expect(res.text).toStartWith('<svg')
})

test('the app files are served under /app/assets/ with long caching; an unknown one is a JSON 404', async () => {
  const { html, assets } = await appFiles()
  const names = [...html.matchAll(/\/app\/assets\/([^"]+)"/g)].map((m) => m[1]!)
  expect(names.length).toBeGreaterThanOrEqual(2)
  for (const name of names) {
    const res = await ctx.call('GET', `/app/assets/${name}`, { token: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toContain('immutable')
    expect(assets.has(name)).toBe(true)
  }
  const missing = await ctx.call('GET', '/app/assets/nope.js', { token: null })
  expect(missing.status).toBe(404)
  expect(missing.body).toEqual({ error: 'not_found', message: 'No such file of the editor app.' })
})

test('API paths keep their JSON errors', async () => {
  const unauthorized = await ctx.call('GET', '/content/acme?id=x', { token: null })
  expect(unauthorized.status).toBe(401)
  expect(unauthorized.body.error).toBe('unauthorized')
  const unknown = await ctx.call('GET', '/no-such-route')
  expect(unknown.status).toBe(404)
  expect(unknown.body.error).toBe('not_found')
  const post = await ctx.call('POST', '/app/x', { token: null })
  expect(post.status).toBe(405)
  expect(post.body.error).toBe('method_not_allowed')
})

test('the JavaScript and CSS of the first load are at most 250 KB gzipped', async () => {
  const { html, assets } = await appFiles()
  const names = [...html.matchAll(/\/app\/assets\/([^"]+)"/g)].map((m) => m[1]!)
  const gz = names.reduce((sum, n) => sum + gzipSync(assets.get(n)!.body).length, 0)
  console.log(`editor app first load: ${(gz / 1024).toFixed(1)} KB gzipped (${names.join(', ')})`)
  expect(gz).toBeLessThanOrEqual(250 * 1024)
})
