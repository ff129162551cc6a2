import { expect, test } from 'bun:test'
import { buildRequest } from '../../../core/delivery/providers'
import { verifySignature } from '../../../receiver'

const payload = JSON.stringify({
  v: 2, eventType: 'content.published', eventId: 'e-1', occurredAt: '2026-11-22T10:00:00.000Z', teamId: 'acme', workspaceId: 'main',
  userId: 'u', documentId: 'pages/a', collection: 'pages', locales: ['en'], status: 'published', url: '/a', urls: { en: '/a' }, previousUrls: [], scope: 'document',
})
const out = (provider: 'custom' | 'netlify' | 'vercel' | 'github', target: string, options = {}) =>
  buildRequest({ webhook: { provider, target, secret: 'sek', options }, payload, eventType: 'content.published', eventId: 'e-1' })

const spec = (body: string) => ({
  'Content-Type': 'application/json; charset=utf-8', 'User-Agent': 'Service-Webhooks/1.0',
  'X-Service-Event': 'content.published', 'X-Service-Delivery': 'e-1', 'X-Service-Signature': expect.stringMatching(/^sha256=/),
  _body: body,
})

test('custom: the stored bytes, signed', () => {
  const r = out('custom', 'https://hooks.example.com/x')
  expect({ ...r.headers, _body: r.body }).toEqual(spec(payload))
  expect(r.url).toBe('https://hooks.example.com/x')
  expect(verifySignature(r.body, r.headers['X-Service-Signature'], 'sek')).toBe(true)
})

test('netlify and vercel build hooks: an empty JSON body; netlify names the build unless the target names it', () => {
  const n = out('netlify', 'https://api.netlify.com/build_hooks/abc')
  expect(n.url).toBe('https://api.netlify.com/build_hooks/abc?trigger_title=content.published+pages%2Fa')
  expect({ ...n.headers, _body: n.body }).toEqual(spec('{}'))
  // A title the target sets itself is kept; other query parameters (trigger_branch, clear_cache) go as they are.
  expect(out('netlify', 'https://api.netlify.com/build_hooks/abc?trigger_title=Mine&clear_cache=true').url).toBe('https://api.netlify.com/build_hooks/abc?trigger_title=Mine&clear_cache=true')
  const v = out('vercel', 'https://api.vercel.com/v1/integrations/deploy/prj/abc')
  expect({ url: v.url, body: v.body }).toEqual({ url: 'https://api.vercel.com/v1/integrations/deploy/prj/abc', body: '{}' })
  expect(verifySignature(v.body, v.headers['X-Service-Signature'], 'sek')).toBe(true)
})

test('github: repository_dispatch with token, accept header and at most 10 client_payload keys', () => {
  const r = out('github', 'https://api.github.com/repos/acme/site/dispatches', { token: 'ghp_x', eventType: 'cms' })
  const body = JSON.parse(r.body)
  expect(body).toEqual({
    event_type: 'cms',
    client_payload: { v: 2, eventType: 'content.published', eventId: 'e-1', teamId: 'acme', documentId: 'pages/a', status: 'published', url: '/a', urls: { en: '/a' }, previousUrls: [], scope: 'document' },
  })
  expect(Object.keys(body.client_payload).length).toBeLessThanOrEqual(10)
  expect(r.headers).toMatchObject({ Authorization: 'Bearer ghp_x', Accept: 'application/vnd.github+json' })
  expect(JSON.parse(out('github', 'https://api.github.com/repos/a/b/dispatches', { token: 't' }).body).event_type).toBe('content.published')
})

test('github: a client_payload over the 64 KB GitHub allows drops previousUrls and says scope "site" (a 422 would lose the event)', () => {
  const moved = Array.from({ length: 1200 }, (_, i) => `/docs/a-rather-long-section-name/page-number-${i}-with-a-long-slug`)
  const big = JSON.stringify({ ...JSON.parse(payload), previousUrls: moved })
  const send = (p: string) =>
    buildRequest({ webhook: { provider: 'github', target: 'https://api.github.com/repos/a/b/dispatches', secret: 'sek', options: { token: 't' } }, payload: p, eventType: 'content.published', eventId: 'e-1' })
  const r = send(big)
  const body = JSON.parse(r.body)
  expect(Buffer.byteLength(big)).toBeGreaterThan(65_535)
  expect(Buffer.byteLength(JSON.stringify(body.client_payload))).toBeLessThanOrEqual(65_535)
  expect(body.client_payload).toEqual({
    v: 2, eventType: 'content.published', eventId: 'e-1', teamId: 'acme', documentId: 'pages/a', status: 'published', url: '/a', urls: { en: '/a' }, previousUrls: [], scope: 'site',
  })
  expect(verifySignature(r.body, r.headers['X-Service-Signature'], 'sek')).toBe(true)
  // Under the limit, the old paths go as they are.
  const some = JSON.stringify({ ...JSON.parse(payload), previousUrls: moved.slice(0, 100) })
  expect(JSON.parse(send(some).body).client_payload).toMatchObject({ previousUrls: moved.slice(0, 100), scope: 'document' })
})

test('github: a payload still over the limit without previousUrls (long paths in many languages) drops urls and url too, so GitHub never answers the final 422', () => {
  const deep = (l: string) => '/' + Array.from({ length: 30 }, (_, i) => `${l}-${i}-${'s'.repeat(190)}`).join('/')
  const locales = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt', 'sv', 'da', 'fi', 'cs']
  const urls = Object.fromEntries(locales.map((l) => [l, deep(l)]))
  const big = JSON.stringify({ ...JSON.parse(payload), url: urls.en, urls, previousUrls: [deep('old')] })
  const r = buildRequest({ webhook: { provider: 'github', target: 'https://api.github.com/repos/a/b/dispatches', secret: 'sek', options: { token: 't' } }, payload: big, eventType: 'content.published', eventId: 'e-1' })
  expect(Buffer.byteLength(big)).toBeGreaterThan(65_535)
  expect(Buffer.byteLength(r.body)).toBeLessThan(64_000)
  expect(JSON.parse(r.body).client_payload).toEqual({
    v: 2, eventType: 'content.published', eventId: 'e-1', teamId: 'acme', documentId: 'pages/a', status: 'published', url: '', urls: {}, previousUrls: [], scope: 'site',
  })
  expect(verifySignature(r.body, r.headers['X-Service-Signature'], 'sek')).toBe(true)
})
