import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, type TestContext } from '../helpers'

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
  expect(Object.keys(list.responses!).sort()).toEqual(['200', '400', '401', '403', '404'])
  expect(paths['/content/publish/{activeTeam}']!.post!.requestBody).toBeDefined()
})

test('/swagger serves the UI', async () => {
  const res = await ctx.call('GET', '/swagger', { token: null })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/html')
})
