/** The restore, snapshot and history routes are documented in /swagger/json (style.md rule 3). */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, type TestContext } from '../helpers'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

test('restore routes document their request body and every answer', async () => {
  const { paths, components } = (await ctx.call('GET', '/swagger/json')).body
  const body = (path: string) => {
    const { $ref } = paths[path].post.requestBody.content['application/json'].schema
    return components.schemas[$ref.replace('#/components/schemas/', '')]
  }
  expect(paths['/content/apply-version/{activeTeam}'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RestoreRequest' })
  expect(paths['/content/apply-snapshot/{activeTeam}'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ApplySnapshotRequest' })
  for (const path of ['/content/apply-version/{activeTeam}', '/content/apply-snapshot/{activeTeam}']) {
    const op = paths[path].post
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '500', '503'])
    expect(body(path).properties).toHaveProperty('locales')
    // The server refuses unknown fields; a generated client must not offer any.
    expect(body(path).additionalProperties).toBe(false)
    // 404 and 409 are batch lists with a reason, not `{error, message}`.
    for (const status of ['404', '409']) expect(op.responses[status].description).toContain('batch list')
  }
  expect(body('/content/apply-version/{activeTeam}').required).toEqual(['kind'])
})

test('snapshot and history routes are documented', async () => {
  const { paths, components } = (await ctx.call('GET', '/swagger/json')).body
  expect(Object.keys(paths['/content/snapshots/{activeTeam}']).sort()).toEqual(['patch', 'post'])
  expect(paths['/content/snapshots/revoke/{activeTeam}'].post.responses).toHaveProperty('200')
  expect(paths['/content/history/{activeTeam}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/History' })
  expect(Object.keys(components.schemas.History.properties).sort()).toEqual(['draft', 'id', 'scheduled', 'snapshots', 'versions'])
})
