/**
 * What a generated client reads in /swagger/json holds at runtime: required parameters are
 * required in the document and a missing one gets spec.md's own code; every body-taking
 * operation declares the 413 the app answers; maps and integers are typed; the ETag, If-Match and
 * If-None-Match headers are declared; a response that breaks its declared schema is our 500, never the caller's 400.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { errorResponse } from '../../api/http/error-mapping'
import { createLogger } from '../../core/log'
import { createTestContext, inlineRefs, TEAM, TOKENS, type TestContext } from '../helpers'

let ctx: TestContext
let doc: any
beforeAll(async () => {
  ctx = await createTestContext()
  doc = inlineRefs((await ctx.call('GET', '/swagger/json', { token: null })).body)
})
afterAll(() => ctx.close())

const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters.find((p: any) => p.name === name)
const err = (code: string) => ({ error: code, message: expect.any(String) })

describe('required parameters: required in the document, spec.md codes at runtime', () => {
  test.each([
    ['/content/{activeTeam}', 'get', 'id'], ['/content/{activeTeam}', 'patch', 'id'], ['/content/versions/{activeTeam}', 'get', 'id'],
    ['/content/version/{activeTeam}', 'get', 'id'], ['/content/version/{activeTeam}', 'get', 'version'],
    ['/content/history/{activeTeam}', 'get', 'id'], ['/content/snapshots/{activeTeam}', 'patch', 'id'],
  ])('%s %s ?%s is required', (path, method, name) => {
    expect(param(path, method, name)).toMatchObject({ in: 'query', required: true })
  })

  test('snapshot bodies require their id', () => {
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema
    expect(body('/content/snapshots/{activeTeam}').required).toContain('documentId')
    expect(body('/content/snapshots/revoke/{activeTeam}').required).toContain('id')
  })

  test.each([
    ['GET', `/content/${TEAM}`, undefined, 'missing_id'],
    ['PATCH', `/content/${TEAM}`, [], 'missing_id'],
    ['GET', `/content/version/${TEAM}?version=QQ`, undefined, 'missing_id'],
    ['GET', `/content/version/${TEAM}?id=pages/home`, undefined, 'bad_reference'],
    ['POST', `/content/snapshots/${TEAM}`, {}, 'missing_id'],
    ['POST', `/content/snapshots/revoke/${TEAM}`, {}, 'missing_id'],
    ['POST', `/content/${TEAM}`, { id: 'p'.repeat(513), contentType: 'page' }, 'invalid_id'],
    ['POST', `/content/schedule/${TEAM}`, { id: 'p'.repeat(513), publishAt: '2099-01-01T00:00:00Z' }, 'invalid_id'],
    ['POST', `/content/snapshots/${TEAM}`, { documentId: 'p'.repeat(513) }, 'invalid_id'],
    ['POST', `/content/${TEAM}`, { id: 42, contentType: 'page' }, 'invalid_body'],
  ])('%s %s without/with a bad id → 400 %#', async (method, url, body, code) => {
    const res = await ctx.call(method, url, { body })
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: err(code as string) })
  })

  test('the test endpoint documents its event types and refuses others with invalid_event_type', async () => {
    expect(param('/teams/{teamId}/webhooks/{id}/test', 'post', 'eventType').schema.anyOf.map((s: any) => s.const)).toEqual(['content.published', 'content.unpublished', 'site.changed'])
    const res = await ctx.call('POST', `/teams/${TEAM}/webhooks/nope/test?eventType=content.updated`, { token: TOKENS.webhooks })
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: err('invalid_event_type') })
  })
})

test('an impossible calendar date is refused, not rolled over (publishAt and expiresAt)', async () => {
  const schedule = await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/home', publishAt: '2031-02-31T10:00:00Z' } })
  expect({ status: schedule.status, body: schedule.body }).toEqual({ status: 400, body: err('invalid_body') })
  const snapshot = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/home', expiresAt: '2030-02-31T00:00:00Z' } })
  expect({ status: snapshot.status, body: snapshot.body }).toEqual({ status: 400, body: err('bad_expiry') })
  expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/home', publishAt: '2031-02-28T10:00:00Z' } })).status).toBe(201)
  // Hour 24 (ISO 8601's end of day) would be the next day's midnight: RFC 3339 stops at 23.
  const midnight = await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/home', publishAt: '2031-01-01T24:00:00Z' } })
  expect({ status: midnight.status, body: midnight.body }).toEqual({ status: 400, body: err('invalid_body') })
  const expiry = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/home', expiresAt: '2031-01-01T24:00:00Z' } })
  expect({ status: expiry.status, body: expiry.body }).toEqual({ status: 400, body: err('bad_expiry') })
  expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/home', publishAt: '2031-01-01T23:59:59Z' } })).status).toBe(201)
})

test('history ignores unknown query parameters like the version list', async () => {
  expect((await ctx.call('GET', `/content/history/${TEAM}?id=pages/home&start=5&cb=1`)).status).toBe(200)
})

test('every operation that takes a body declares 413 payload_too_large', () => {
  const withBody = Object.entries<any>(doc.paths).flatMap(([path, ops]) => Object.entries<any>(ops).filter(([, op]) => op.requestBody).map(([m, op]) => [`${m} ${path}`, op]))
  expect(withBody.length).toBeGreaterThan(15)
  for (const [name, op] of withBody) {
    expect({ name, schema: op.responses['413']?.content['application/json'].schema.required }).toEqual({ name, schema: ['error', 'message'] })
  }
})

test('every operation declares the 400 of a repeated query parameter, /health and /metrics too, and it is answered so', async () => {
  const ops = Object.entries<any>(doc.paths).flatMap(([path, o]) => Object.entries<any>(o).map(([m, op]) => [`${m} ${path}`, op]))
  // `{error, message}`, alone or among the shapes a route's 400 may have (restore's batch list).
  const takesError = (schema: any): boolean => (schema?.anyOf ?? [schema]).some((s: any) => s?.required?.join() === 'error,message')
  for (const [name, op] of ops) expect({ name, error: takesError(op.responses['400']?.content['application/json'].schema) }).toEqual({ name, error: true })
  for (const url of ['/health?a=1&a=2', '/metrics?a=1&a=2']) {
    const res = await ctx.call('GET', url)
    expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 400, body: err('invalid_body') })
  }
})

test('a 401 declares and sends WWW-Authenticate: Bearer', async () => {
  const ops = Object.entries<any>(doc.paths).flatMap(([path, o]) => Object.entries<any>(o).map(([m, op]) => [`${m} ${path}`, op]))
  const guarded = ops.filter(([, op]) => op.responses['401'])
  expect(guarded.length).toBeGreaterThan(30)
  for (const [name, op] of guarded) expect({ name, header: op.responses['401'].headers?.['WWW-Authenticate']?.schema }).toEqual({ name, header: { type: 'string', const: 'Bearer' } })
  // Every operation that needs a token declares its 401.
  for (const [name, op] of ops) if (op['x-capabilities'].length > 0) expect({ name, has401: !!op.responses['401'] }).toEqual({ name, has401: true })
  const res = await ctx.call('GET', `/content/${TEAM}?id=pages/home`, { token: null })
  expect({ status: res.status, header: res.headers.get('www-authenticate'), body: res.body }).toEqual({ status: 401, header: 'Bearer', body: err('unauthorized') })
})

test('the redelivery answer types eventType as the event types, as everywhere else', () => {
  const schema = doc.paths['/teams/{teamId}/webhooks/{id}/deliveries/{eventId}/redeliver'].post.responses['202'].content['application/json'].schema
  expect(schema.properties.eventType.anyOf.map((s: any) => s.const)).toEqual(['content.published', 'content.unpublished', 'site.changed'])
  expect(doc.components.schemas.EventPayload.properties.eventId.format).toBe('uuid')
  expect(doc.components.schemas.EventPayload.properties.occurredAt.format).toBe('date-time')
})

test('maps are additionalProperties and integers are integers, so generators type them', () => {
  const text = JSON.stringify(doc)
  expect(text).not.toContain('patternProperties')
  expect(text).not.toContain('"format":"integer"')
  const fallbacks = doc.paths['/teams/{teamId}/localization'].put.responses['200'].content['application/json'].schema.properties.fallbacks
  expect(fallbacks).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } })
  expect(doc.paths['/teams/{teamId}/content-index'].put.responses['200'].content['application/json'].schema.properties.indexGeneration.type).toBe('integer')
})

test('documents are typed: id, contentType, fields, locales and @metadata; restore items are one success or one failure', () => {
  const schema = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema
  for (const [path, method] of [['/content/{activeTeam}', 'post'], ['/content/{activeTeam}', 'patch']]) {
    expect(schema(path, method, '200').required).toEqual(['id', 'contentType', 'fields', 'locales', '@metadata'])
  }
  expect(schema('/content/version/{activeTeam}', 'get', '200').required).toEqual(['id', 'contentType', 'fields', 'locales'])
  const restored = schema('/content/apply-version/{activeTeam}', 'post', '200')
  expect(restored).toMatchObject({ minItems: 1, maxItems: 1, items: { required: ['id', 'status', 'document'], properties: { status: { const: 0 } } } })
  expect(schema('/content/apply-version/{activeTeam}', 'post', '409')).toMatchObject({ minItems: 1, maxItems: 1, items: { properties: { status: { const: 1 } } } })
  const log = schema('/teams/{teamId}/webhooks/{id}/deliveries', 'get', '200').items.properties
  expect(log.status.anyOf.map((s: any) => s.const)).toEqual(['pending', 'delivered', 'failed'])
})

test('ETag and If-Match are declared where the api uses them', () => {
  for (const [path, method] of [['/content/{activeTeam}', 'get'], ['/content/{activeTeam}', 'post'], ['/content/{activeTeam}', 'patch']]) {
    expect(doc.paths[path][method].responses['200'].headers.ETag.schema).toEqual({ type: 'string' })
  }
  for (const path of ['/content/{activeTeam}', '/content/apply-version/{activeTeam}', '/content/apply-snapshot/{activeTeam}']) {
    expect(param(path, 'post', 'if-match')).toMatchObject({ in: 'header', required: false })
  }
  expect(param('/content/{activeTeam}', 'patch', 'if-match')).toMatchObject({ in: 'header', required: false })
  // The read's conditional form: If-None-Match in, a bodiless 304 with the ETag out.
  expect(param('/content/{activeTeam}', 'get', 'if-none-match')).toMatchObject({ in: 'header', required: false })
  expect(doc.paths['/content/{activeTeam}'].get.responses['304']).toEqual({ description: expect.stringContaining('If-None-Match'), headers: { ETag: expect.objectContaining({ required: true }) } })
  const with304 = Object.entries<any>(doc.paths).flatMap(([path, ops]) => Object.entries<any>(ops).filter(([, op]) => op.responses['304']).map(([method]) => `${method} ${path}`))
  expect(with304).toEqual(['get /content/{activeTeam}'])
})

test('every header the document declares on an answer is required (always sent, so not optional in a client), and sent', async () => {
  const declared = Object.values<any>(doc.paths).flatMap((ops) => Object.values<any>(ops)).flatMap((op) => Object.values<any>(op.responses))
    .flatMap((r) => Object.entries<any>(r.headers ?? {}))
  expect(new Set(declared.map(([name]) => name))).toEqual(new Set(['ETag', 'WWW-Authenticate', 'Retry-After']))
  for (const [name, header] of declared) expect({ name, required: header.required }).toEqual({ name, required: true })
  const read = await ctx.call('GET', `/content/${TEAM}?id=pages/home`)
  const anonymous = await ctx.call('GET', `/content/${TEAM}?id=pages/home`, { token: null })
  expect([read.headers.get('etag'), anonymous.headers.get('www-authenticate')]).toEqual([expect.stringMatching(/^"A:/), 'Bearer'])
})

test('/metrics is documented with the media type it is sent with', async () => {
  const res = await ctx.call('GET', '/metrics')
  expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual([res.headers.get('content-type') ?? 'no content-type'])
})

test('a response that breaks its declared schema is a 500 internal error, not a 400 for the caller', async () => {
  const errors: unknown[] = []
  const log = Object.assign(createLogger('silent', 'test'), { error: (o: unknown) => void errors.push(o) })
  const app = new Elysia({ normalize: false })
    .onError(({ error, code }) => errorResponse(error, code, log as never))
    .get('/broken', () => ({ id: 1 }) as never, { response: { 200: t.Object({ id: t.String() }) } })
  const res = await app.handle(new Request('http://localhost/broken'))
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 500, body: { error: 'internal', message: 'Internal error.' } })
  expect(errors).toHaveLength(1)
})

test('a body nested deeper than 100 levels is 400 invalid_body and writes nothing (it was a 500)', async () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n)
  const raw = (method: string, url: string, text: string) =>
    ctx.app.handle(new Request(`http://localhost${url}`, { method, headers: { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'application/json' }, body: text }))
  for (const [method, url, text] of [
    ['POST', `/content/${TEAM}`, `{"id":"pages/deep","contentType":"page","fields":{"x":${deep(40_000)}}}`],
    ['PATCH', `/content/${TEAM}?id=pages/home`, `[{"op":"add","path":"/fields/x","value":${deep(40_000)}}]`],
    // Where the schema expects another type: Elysia's error builder recursed into these (a 500
    // after seconds of blocking every request), so depth is checked before the schemas.
    ['POST', `/content/${TEAM}`, `{"id":${deep(100_000)},"contentType":"page"}`],
    ['PATCH', `/content/${TEAM}?id=pages/home`, `[${deep(100_000)}]`],
    ['POST', `/content/snapshots/${TEAM}`, `{"documentId":"pages/home","name":${deep(100_000)}}`],
    ['POST', `/teams/${TEAM}/webhooks`, `{"label":"l","provider":${deep(100_000)},"target":"https://example.com/h"}`],
    ['POST', `/content/apply-version/${TEAM}`, `{"kind":"revision","documentId":"pages/home","version":"x","locales":${deep(100_000)}}`],
  ] as const) {
    const started = performance.now()
    const res = await raw(method, url, text)
    expect({ url, status: res.status, body: await res.json() }).toEqual({ url, status: 400, body: err('invalid_body') })
    expect(performance.now() - started).toBeLessThan(2000)
  }
  expect((await ctx.call('GET', `/content/${TEAM}?id=pages/deep`)).status).toBe(404)
  const fine = await ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/nested', contentType: 'page', fields: { x: JSON.parse(deep(90)) } } })
  expect(fine.status).toBe(200)
})

test('bodies are JSON only: a form or multipart body is 415 and writes nothing; the media type is case-insensitive', async () => {
  const send = (url: string, contentType: string | null, body: string | FormData) =>
    ctx.app.handle(new Request(`http://localhost${url}`, {
      method: 'POST', headers: { authorization: `Bearer ${TOKENS.editor}`, ...(contentType ? { 'content-type': contentType } : {}) }, body,
    }))
  const refused = { status: 415, body: { error: 'unsupported_media_type', message: expect.stringContaining('application/json') } }
  for (const [contentType, body] of [
    ['application/x-www-form-urlencoded', 'id=pages/form&contentType=page'],
    ['text/plain', '{"id":"pages/form","contentType":"page"}'],
  ] as const) {
    const res = await send(`/content/${TEAM}`, contentType, body)
    expect({ status: res.status, body: await res.json() }).toEqual(refused)
  }
  const form = new FormData()
  form.set('id', 'pages/form')
  form.set('contentType', 'page')
  const multipart = await send(`/content/${TEAM}`, null, form) // fetch sets multipart/form-data with its boundary
  expect({ status: multipart.status, body: await multipart.json() }).toEqual(refused)
  const restore = await send(`/content/apply-version/${TEAM}`, 'application/x-www-form-urlencoded', 'kind=revision')
  expect(restore.status).toBe(415)
  expect((await ctx.call('GET', `/content/${TEAM}?id=pages/form`)).status).toBe(404)
  // JSON under any spelling of its media type is read as JSON.
  const upper = await send(`/content/${TEAM}`, 'APPLICATION/JSON; Charset=UTF-8', '{"id":"pages/form","contentType":"page"}')
  expect(upper.status).toBe(200)
})

test('a restore body with a field spec.md does not name is 400 invalid_body and restores nothing', async () => {
  const res = await ctx.call('POST', `/content/apply-version/${TEAM}`, { body: { kind: 'revision', documentId: 'pages/home', version: 'x', locale: ['de'] } })
  expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: 'Unknown field(s): "locale".' } })
  expect((await ctx.call('GET', `/content/${TEAM}?id=pages/home/draft`)).status).toBe(404)
})

test('an unknown property named like an id is invalid_body (the property is wrong, not the id)', async () => {
  const cases: [string, string, unknown][] = [
    ['POST', `/content/publish/${TEAM}`, { ids: ['pages/home'], id: 'pages/home' }],
    ['POST', `/content/publish/${TEAM}`, { ids: ['pages/home'], documentId: 'pages/home' }],
    ['POST', `/content/unpublish/${TEAM}`, { ids: ['pages/home'], eventType: 'content.published' }],
  ]
  for (const [method, path, body] of cases) {
    const res = await ctx.call(method, path, { body })
    expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 400, error: 'invalid_body' })
  }
})
