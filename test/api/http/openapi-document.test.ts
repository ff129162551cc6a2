import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { createTestContext, inlineRefs, TEAM, TOKENS, type TestContext } from '../../helpers'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

test('/swagger/json is OpenAPI 3 describing every route with its schemas', async () => {
  const res = await ctx.call('GET', '/swagger/json', { token: null })
  expect(res.status).toBe(200)
  expect(res.body.openapi).toMatch(/^3\./)
  const paths = res.body.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown; responses?: Record<string, unknown> }>>
  for (const [path, method] of [
    ['/content/{activeTeam}', 'get'], ['/content/{activeTeam}', 'post'], ['/content/{activeTeam}', 'patch'],
    ['/content/publish/{activeTeam}', 'post'], ['/content/versions/{activeTeam}', 'get'], ['/content/version/{activeTeam}', 'get'],
    ['/content/archive/{activeTeam}', 'post'], ['/content/copy/{activeTeam}', 'post'], ['/content/schedule/{activeTeam}', 'post'],
  ] as const) {
    expect(paths[path]?.[method]).toBeDefined()
  }
  const list = paths['/content/versions/{activeTeam}']!.get!
  expect(list.parameters!.filter((p) => p.in === 'query').map((p) => p.name).sort()).toEqual(['id', 'pageSize', 'start'])
  expect(Object.keys(list.responses!).sort()).toEqual(['200', '400', '401', '403', '404', '413', '500', '503'])
  expect(paths['/content/publish/{activeTeam}']!.post!.requestBody).toBeDefined()
})

test('/swagger serves the UI page, its bundle from this api (never `latest` from a CDN)', async () => {
  const res = await ctx.call('GET', '/swagger', { token: null })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/html')
  expect(res.text).toContain('src="/swagger/assets/scalar.js"')
  expect(res.text).not.toContain('cdn.jsdelivr.net')
  expect(res.text).not.toContain('@latest')
})

test('/swagger/ (trailing slash) redirects to /swagger, where the page finds its document at swagger/json', async () => {
  const res = await ctx.call('GET', '/swagger/', { token: null })
  expect(res.status).toBe(308)
  expect(res.headers.get('location')).toBe('/swagger')
  const page = await ctx.call('GET', '/swagger', { token: null })
  expect(page.text).toContain('swagger/json')
  expect((await ctx.call('GET', new URL('swagger/json', 'http://localhost/swagger').pathname, { token: null })).status).toBe(200)
})

test('/swagger/json is a valid OpenAPI 3.1 document, as client generators and validators read it', async () => {
  const doc = (await ctx.call('GET', '/swagger/json', { token: null })).body
  const result = await new Validator().validate(doc)
  expect(result.errors ?? []).toEqual([])
  expect(result.valid).toBe(true)
  expect(doc.openapi).toBe('3.1.0')
})

test('every operation: JSON bodies only, a description and nothing but content/headers on every response', async () => {
  const doc = (await ctx.call('GET', '/swagger/json', { token: null })).body
  const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ at: `${method} ${path}`, op })))
  expect(operations.length).toBeGreaterThan(30)
  for (const { at, op } of operations) {
    // JSON Patch is also declared under its own media type (see the JSON Patch test below).
    const types = at === 'patch /content/{activeTeam}' ? ['application/json', 'application/json-patch+json'] : ['application/json']
    if (op.requestBody) expect({ at, types: Object.keys(op.requestBody.content) }).toEqual({ at, types })
    for (const [status, response] of Object.entries<Record<string, unknown>>(op.responses)) {
      expect({ at, status, description: typeof response.description }).toEqual({ at, status, description: 'string' })
      expect(Object.keys(response).filter((k) => !['description', 'content', 'headers'].includes(k))).toEqual([])
    }
    if (at !== 'get /health') expect({ at, has401: '401' in op.responses }).toEqual({ at, has401: true })
  }
})

test('the answers spec.md fixes are typed as it fixes them', async () => {
  const doc = inlineRefs((await ctx.call('GET', '/swagger/json', { token: null })).body)
  const list = doc.paths['/content/versions/{activeTeam}'].get
  const query = Object.fromEntries(list.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.schema.type]))
  expect(query).toEqual({ id: 'string', start: 'integer', pageSize: 'integer' })
  // Restore's 400 comes in three shapes; problem details under their own media type.
  const restore400 = doc.paths['/content/apply-version/{activeTeam}'].post.responses['400'].content
  expect(Object.keys(restore400).sort()).toEqual(['application/json', 'application/problem+json'])
  expect(restore400['application/problem+json'].schema.required).toEqual(['title', 'status', 'errors'])
  // A webhook list is an array in content, not array keywords on the response object.
  expect(doc.paths['/teams/{teamId}/webhooks'].get.responses['200'].content['application/json'].schema.type).toBe('array')
  expect(Object.keys(doc.paths['/content/schedule/{activeTeam}'].post.responses)).toContain('201')
  expect(doc.paths['/teams/{teamId}/webhooks/{id}'].delete.responses['204']).toEqual({ description: expect.any(String) })
})

test('what a generated client needs beyond the shapes: base URL, integer statuses, every answer the app can give, true texts', async () => {
  const doc = inlineRefs((await ctx.call('GET', '/swagger/json', { token: null })).body)
  expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }])
  // spec.md "Batch result item": status is an integer (typed languages get an int, not a float).
  // Each item is a success or a refusal, told apart by `status`: a client narrows on it, and a
  // published item's `document` is then there (not optional), a refusal's `reason` too.
  const branches = (path: string) => doc.paths[path].post.responses['200'].content['application/json'].schema.items.anyOf
    .map((b: any) => ({ status: [b.properties.status.type, b.properties.status.const], required: [...b.required].sort() }))
  expect(branches('/content/publish/{activeTeam}')).toEqual([
    { status: ['integer', 0], required: ['document', 'id', 'status'] }, { status: ['integer', 1], required: ['id', 'reason', 'status'] },
  ])
  expect(branches('/content/archive/{activeTeam}')).toEqual([
    { status: ['integer', 0], required: ['id', 'status'] }, { status: ['integer', 1], required: ['id', 'reason', 'status'] },
  ])
  // Any operation can be answered 413 and 500, and any but a GET 415 (the body checks run before
  // routing, for a body sent with any method, a DELETE's too; a GET's body is never read).
  const test = doc.paths['/teams/{teamId}/webhooks/{id}/test'].post
  expect(test.responses['413'].content['application/json'].schema.required).toEqual(['error', 'message'])
  for (const [path, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const has = ['413', '415', '500', '503'].filter((s) => s in op.responses)
      expect({ path, method, has }).toEqual({ path, method, has: method === 'get' ? ['413', '500', '503'] : ['413', '415', '500', '503'] })
      // Path segments are capped like the routes cap them (a 10 KB team id is refused, not looked up).
      for (const p of (op.parameters ?? []).filter((p: any) => p.in === 'path')) {
        expect({ path, name: p.name, capped: p.schema.maxLength > 0 && p.schema.maxLength <= 200 }).toEqual({ path, name: p.name, capped: true })
      }
    }
  }
  const big = await ctx.call('POST', `/teams/${TEAM}/webhooks/nope/test`, { body: { pad: 'x'.repeat(2_000_000) } })
  expect({ status: big.status, error: big.body.error }).toEqual({ status: 413, error: 'payload_too_large' })
  const bigGet = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/home`, { body: { pad: 'x'.repeat(2_000_000) } })
  expect({ status: bigGet.status, error: bigGet.body.error }).toEqual({ status: 413, error: 'payload_too_large' })
  const textDelete = await ctx.app.handle(new Request(`http://localhost/teams/${TEAM}/webhooks/nope`, {
    method: 'DELETE', headers: { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'text/plain' }, body: 'hello',
  }))
  expect({ status: textDelete.status, error: ((await textDelete.json()) as any).error }).toEqual({ status: 415, error: 'unsupported_media_type' })
  // Texts that say what the route really does.
  const redeliver = doc.paths['/teams/{teamId}/webhooks/{id}/deliveries/{eventId}/redeliver'].post
  expect(redeliver.responses['409'].description).toContain('delivery_in_progress')
  const patchSecret = doc.paths['/teams/{teamId}/webhooks/{id}'].patch.requestBody.content['application/json'].schema.properties.secret
  expect(patchSecret.description).toContain('the secret is kept')
  expect(doc.paths['/content/{activeTeam}'].post.responses['400'].content['application/json'].schema.properties.error.description).toContain('protected_field')
})

test('the document is the same before and after the routes have answered (a generated client does not depend on when it was fetched)', async () => {
  const fresh = await createTestContext()
  try {
    const cold = (await fresh.call('GET', '/swagger/json', { token: null })).body
    // Elysia completes a response schema the first time it checks one; a shared schema object
    // (the error body) used to change the document of every route after the first request.
    await fresh.call('GET', `/content/versions/${TEAM}?id=pages/home`)
    await fresh.call('POST', `/content/apply-version/${TEAM}`, { body: { kind: 'revision' } })
    await fresh.call('GET', `/content/${TEAM}?id=pages/none`)
    await fresh.call('GET', '/metrics')
    const warm = (await fresh.call('GET', '/swagger/json', { token: null })).body
    expect(warm).toEqual(cold)
  } finally {
    await fresh.close()
  }
})

/** A schema with its `$ref` (to `#/components/schemas/...`) followed, if it has one. */