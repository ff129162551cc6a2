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
  // apply-version takes a union on `kind` (test/api/http/openapi.test.ts); each branch, and apply-snapshot's body, is one object.
  const shapes = [
    ['/content/apply-version/{activeTeam}', components.schemas.RevisionRestoreRequest],
    ['/content/apply-version/{activeTeam}', components.schemas.SnapshotRestoreRequest],
    ['/content/apply-snapshot/{activeTeam}', body('/content/apply-snapshot/{activeTeam}')],
  ] as const
  for (const [path, shape] of shapes) {
    const op = paths[path].post
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '500', '503'])
    expect(shape.properties).toHaveProperty('locales')
    // The server refuses unknown fields; a generated client must not offer any.
    expect(shape.additionalProperties).toBe(false)
    // 404 and 409 are batch lists with a reason, not `{error, message}`.
    for (const status of ['404', '409']) expect(op.responses[status].description).toContain('batch list')
  }
  expect(components.schemas.RevisionRestoreRequest.required).toEqual(['kind', 'documentId', 'version'])
  // `null` is read as absent (docs/api/restore.md#the-request), so a client that sends it for an optional field must be allowed to by its types.
  const nullable = (schema: any) => (schema.anyOf ?? []).map((s: any) => s.type).sort()
  for (const [name, field] of [['SnapshotRestoreRequest', 'documentId'], ['ApplySnapshotRequest', 'documentId']] as const) {
    expect({ name, field, types: nullable(components.schemas[name].properties[field]) }).toEqual({ name, field, types: ['null', 'string'] })
  }
  const sent = await ctx.call('POST', '/content/apply-snapshot/acme', { body: { snapshotId: 'pages/home/snapshot/nope', documentId: null } })
  expect({ status: sent.status, reason: sent.body[0]?.reason }).toEqual({ status: 404, reason: expect.any(String) })
})

test('snapshot and history routes are documented', async () => {
  const { paths, components } = (await ctx.call('GET', '/swagger/json')).body
  expect(Object.keys(paths['/content/snapshots/{activeTeam}']).sort()).toEqual(['get', 'patch', 'post'])
  expect(paths['/content/snapshots/{activeTeam}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SnapshotList' })
  expect(paths['/content/snapshots/revoke/{activeTeam}'].post.responses).toHaveProperty('200')
  expect(paths['/content/history/{activeTeam}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/History' })
  expect(Object.keys(components.schemas.History.properties).sort()).toEqual(['draft', 'id', 'scheduled', 'snapshots', 'versions'])
})
