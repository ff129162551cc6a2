import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { allPayloads } from '../../rows'
import { EventPayload } from '../../../core/webhooks/model'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../../helpers'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

const deref = (doc: any, schema: any): any => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema)

test('GET /content answers a document or a closed activity document, so `\'contentType\' in data` narrows a generated client', async () => {
  const doc = (await ctx.call('GET', '/swagger/json', { token: null })).body
  const branches = doc.paths['/content/{activeTeam}'].get.responses['200'].content['application/json'].schema.anyOf.map((b: any) => deref(doc, b))
  const [document, activity] = branches
  expect(document.required).toContain('contentType')
  // Open (extra properties allowed) would give the activity type an index signature, and then
  // `contentType`, `fields` and `locales` stay `unknown` after `'contentType' in data`.
  expect(activity.additionalProperties).toBe(false)
  expect(Object.keys(activity.properties).sort()).toEqual(['@metadata', 'entries', 'id'])
  expect(deref(doc, activity.properties.entries.items).additionalProperties).toBe(false)
  // Runtime response validation is on: a real activity document (edits, then a restore) still passes.
  await ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/narrow', contentType: 'page', locales: { en: { title: 'A', slug: 'narrow' } } } })
  await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/narrow'] } })
  const versions = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/narrow`)
  const restored = await ctx.call('POST', `/content/apply-version/${TEAM}`, { body: { kind: 'revision', documentId: 'pages/narrow', version: versions.body.rows[0].version, locales: ['en'] } })
  expect(restored.status).toBe(200)
  const read = await ctx.call('GET', `/content/${TEAM}?id=pages/narrow/activity`)
  expect(read.status).toBe(200)
  expect(read.body.entries.map((e: any) => e.kind)).toEqual(['EDIT', 'APPLY_REVISION'])
})

test('shared schemas are named in components.schemas and referred to by $ref, so generated clients get Document, BatchItem, ErrorBody... types (not Error, which would shadow the global)', async () => {
  const fresh = await createTestContext()
  try {
    const cold = await fresh.call('GET', '/swagger/json', { token: null })
    const doc = cold.body
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining([
      'Document', 'DocumentBody', 'DocumentMetadata', 'ActivityDocument', 'BatchItem', 'BatchFailure', 'ErrorBody', 'Problem',
      'VersionRow', 'VersionPage', 'SnapshotRecord', 'WebhookRecord', 'WebhookWithSecret', 'Delivery', 'WebhookTestResult',
    ]))
    const json = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema
    expect(json('/content/{activeTeam}', 'post', '200')).toEqual({ $ref: '#/components/schemas/Document' })
    expect(json('/content/{activeTeam}', 'post', '400')).toEqual({ $ref: '#/components/schemas/ErrorBody' })
    expect(json('/content/{activeTeam}', 'post', '503')).toEqual({ $ref: '#/components/schemas/ErrorBody' })
    expect(json('/content/publish/{activeTeam}', 'post', '200').items).toEqual({ $ref: '#/components/schemas/PublishItem' })
    expect(json('/content/delete/{activeTeam}', 'post', '200').items).toEqual({ $ref: '#/components/schemas/BatchItem' })
    expect(doc.components.schemas.PublishItem.anyOf).toEqual([{ $ref: '#/components/schemas/Published' }, { $ref: '#/components/schemas/BatchFailure' }])
    expect(json('/content/versions/{activeTeam}', 'get', '200')).toEqual({ $ref: '#/components/schemas/VersionPage' })
    expect(doc.components.schemas.VersionPage.properties.rows.items).toEqual({ $ref: '#/components/schemas/VersionRow' })
    // The History drawer's answer is named, and its first page of versions is the version list's page, not a copy.
    expect(json('/content/history/{activeTeam}', 'get', '200')).toEqual({ $ref: '#/components/schemas/History' })
    expect(doc.components.schemas.History.properties.versions).toEqual({ $ref: '#/components/schemas/VersionPage', description: expect.stringContaining('First page') })
    expect(doc.components.schemas.History.properties.snapshots.items).toEqual({ $ref: '#/components/schemas/HistorySnapshot' })
    expect(json('/teams/{teamId}/webhooks', 'get', '200').items).toEqual({ $ref: '#/components/schemas/WebhookRecord' })
    expect(doc.components.schemas.WebhookWithSecret.required).toContain('secret')
    // Every $ref names a schema that is there; no schema is left titled inline (it would be a second, unnamed copy).
    const text = JSON.stringify(doc.paths)
    for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) expect({ name, there: name! in doc.components.schemas }).toEqual({ name, there: true })
    expect(text).not.toContain('"title"')
    // Every JSON request body and success answer is a named schema (a `$ref`, an array of one, or a
    // choice between them), so a generated client gets one type per shape, not `PutTeamsByTeamIdLocalesRequest`-style copies.
    const named = (s: any): boolean => !!s && (typeof s.$ref === 'string' || (s.type === 'array' && named(s.items)) || (Array.isArray(s.anyOf) && s.anyOf.every(named)))
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const shapes = [['body', op.requestBody?.content?.['application/json']?.schema], ...Object.entries<any>(op.responses).filter(([s]) => s.startsWith('2')).map(([s, r]) => [s, r.content?.['application/json']?.schema])]
        for (const [where, schema] of shapes) if (schema) expect({ op: `${method} ${path} ${where}`, named: named(schema) }).toEqual({ op: `${method} ${path} ${where}`, named: true })
      }
    }
    expect(json('/teams/{teamId}/locales', 'put', '200')).toEqual({ $ref: '#/components/schemas/TeamLocales' })
    expect(json('/teams/{teamId}/localization', 'put', '200')).toEqual({ $ref: '#/components/schemas/TeamLocales' })
    expect(doc.paths['/content/archive/{activeTeam}'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/IdList' })
    expect(json('/content/apply-version/{activeTeam}', 'post', '200').items).toEqual({ $ref: '#/components/schemas/RestoreResult' })
    // Byte-identical on every fetch, whatever the routes answered in between.
    await fresh.call('GET', `/content/versions/${TEAM}?id=pages/home`)
    await fresh.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/home'] } })
    await fresh.call('GET', `/teams/${TEAM}/webhooks`)
    await fresh.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/home' } })
    await fresh.call('GET', `/content/${TEAM}?id=pages/none`)
    expect((await fresh.call('GET', '/swagger/json', { token: null })).text).toBe(cold.text)
  } finally {
    await fresh.close()
  }
})

test('operationIds are unique camelCase identifiers and every tag used is listed with a description', async () => {
  const doc = (await ctx.call('GET', '/swagger/json', { token: null })).body
  const operations = Object.values<Record<string, any>>(doc.paths).flatMap((ops) => Object.values<any>(ops))
  const ids = operations.map((op) => op.operationId as string)
  for (const id of ids) expect({ id, camel: /^[a-z][A-Za-z0-9]*$/.test(id) }).toEqual({ id, camel: true })
  expect(new Set(ids).size).toBe(ids.length)
  expect(ids).toContain('postContentApplyVersionByActiveTeam')
  expect(ids).toContain('putTeamsByTeamIdContentTypesByName')
  const used = [...new Set(operations.flatMap((op) => op.tags ?? []))].sort()
  expect(doc.tags.map((t: { name: string }) => t.name).sort()).toEqual(used)
  for (const tag of doc.tags) expect({ tag: tag.name, described: typeof tag.description === 'string' && tag.description.length > 10 }).toEqual({ tag: tag.name, described: true })
})

test('every operation says which capabilities it needs, in x-capabilities and its description', async () => {
  const doc = (await ctx.call('GET', '/swagger/json', { token: null })).body
  const needs = (path: string, method: string) => doc.paths[path][method]['x-capabilities']
  expect(needs('/content/{activeTeam}', 'get')).toEqual(['EditContent'])
  expect(needs('/content/publish/{activeTeam}', 'post')).toEqual(['EditContent', 'ChangeLiveContent'])
  expect(needs('/content/archive/{activeTeam}', 'post')).toEqual(['EditContent', 'ChangeLiveContent'])
  expect(needs('/content/copy/{activeTeam}', 'post')).toEqual(['EditContent'])
  expect(needs('/teams/{teamId}/webhooks', 'post')).toEqual(['ManageWebhooks'])
  expect(needs('/teams/{teamId}/content-index', 'put')).toEqual(['ManageTeam'])
  expect(needs('/health', 'get')).toEqual([])
  expect(doc.paths['/teams/{teamId}/locales'].get['x-capabilities-any']).toEqual(['EditContent', 'ManageTeam'])
  expect(doc.paths['/teams/{teamId}/locales'].get.description).toStartWith('Needs one of the capabilities `EditContent` or `ManageTeam`')
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      for (const capability of op['x-capabilities']) expect({ path, method, said: op.description.includes(`\`${capability}\``) }).toEqual({ path, method, said: true })
      // A read of team settings takes any one of two (x-capabilities-any); everything else all of its list.
      const any: string[] = op['x-capabilities-any'] ?? []
      for (const capability of any) expect({ path, method, said: op.description.includes(`\`${capability}\``) }).toEqual({ path, method, said: true })
      if (path.includes('{activeTeam}') || path.includes('{teamId}')) expect({ path, method, some: op['x-capabilities'].length + any.length > 0 }).toEqual({ path, method, some: true })
    }
  }
  // The conditional rule is said where it applies.
  expect(doc.paths['/content/{activeTeam}'].post.description).toContain('`ChangeLiveContent` too')
  expect(doc.paths['/content/apply-version/{activeTeam}'].post.description).toContain('`ChangeLiveContent` too')
  // What the document says is what the routes check: EditContent alone cannot publish.
  const res = await ctx.call('POST', `/content/publish/${TEAM}`, { token: TOKENS.translator, body: { ids: ['pages/home'] } })
  expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: { error: 'forbidden', message: 'Missing capability: ChangeLiveContent.' } })
})

test('the top-level webhooks entry describes the request a receiver gets: headers and the v2 payload schema', async () => {
  const doc = (await ctx.call('GET', '/swagger/json', { token: null })).body
  const post = doc.webhooks.serviceEvent.post
  const headers = Object.fromEntries(post.parameters.map((p: any) => [p.name, { in: p.in, required: p.required, schema: p.schema }]))
  expect(headers).toEqual({
    'X-Service-Event': { in: 'header', required: true, schema: { type: 'string', enum: ['content.published', 'content.unpublished', 'site.changed'] } },
    'X-Service-Delivery': { in: 'header', required: true, schema: { type: 'string' } },
    'X-Service-Signature': { in: 'header', required: true, schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' } },
    'User-Agent': { in: 'header', required: true, schema: { type: 'string', const: 'Service-Webhooks/1.0' } },
  })
  expect(post.description).toContain('application/json; charset=utf-8')
  expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/EventPayload' })
  const schema = doc.components.schemas.EventPayload
  expect(schema.required).toEqual(['v', 'eventType', 'eventId', 'occurredAt', 'teamId', 'workspaceId', 'userId', 'documentId', 'collection', 'locales', 'status', 'url', 'urls', 'previousUrls', 'scope'])
  expect(schema.properties.v).toMatchObject({ const: 2, type: 'integer' })
  // The schema is the one real payloads are written from: a publish's event matches it.
  const hook = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { body: { label: 'payload', provider: 'custom', target: 'http://127.0.0.1:4641/hook' } })
  expect(hook.status).toBe(201)
  const before = new Set((await allPayloads(ctx.db)).map((p) => p.eventId))
  await ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/payload', contentType: 'page', locales: { en: { title: 'P', slug: 'payload' } } } })
  expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/payload'] } })).body[0].status).toBe(0)
  const payloads = (await allPayloads(ctx.db)).filter((p) => !before.has(p.eventId))
  expect(payloads.length).toBeGreaterThan(0)
  for (const payload of payloads) {
    expect({ id: payload.eventId, valid: Value.Check(EventPayload, payload) }).toEqual({ id: payload.eventId, valid: true })
    expect(Object.keys(payload)).toEqual(Object.keys(schema.properties))
  }
})

test('PATCH /content documents its RFC 6902 operations, under application/json-patch+json too; bad operations stay 400 invalid_patch', async () => {
  const doc = (await ctx.call('GET', '/swagger/json', { token: null })).body
  const content = doc.paths['/content/{activeTeam}'].patch.requestBody.content
  expect(content).toEqual({
    'application/json': { schema: { $ref: '#/components/schemas/JsonPatch' } },
    'application/json-patch+json': { schema: { $ref: '#/components/schemas/JsonPatch' } },
  })
  expect(doc.components.schemas.JsonPatch.items).toEqual({ $ref: '#/components/schemas/JsonPatchOperation' })
  const shapes = doc.components.schemas.JsonPatchOperation.anyOf.map((b: any) => ({
    ops: (b.properties.op.anyOf ?? [b.properties.op]).map((o: any) => o.const), required: b.required,
  }))
  expect(shapes).toEqual([
    { ops: ['add', 'replace', 'test'], required: ['op', 'path', 'value'] },
    { ops: ['remove'], required: ['op', 'path'] },
    { ops: ['move', 'copy'], required: ['op', 'from', 'path'] },
  ])
  // The route itself is unchanged: both media types are read, and fast-json-patch judges the operations.
  const patch = (body: unknown, type: string) => ctx.call('PATCH', `/content/${TEAM}?id=pages/home`, { body, headers: { 'content-type': type } })
  const replaced = await patch([{ op: 'replace', path: '/locales/en/title', value: 'Patched' }], 'application/json-patch+json')
  expect({ status: replaced.status, title: replaced.body.locales?.en?.title }).toEqual({ status: 200, title: 'Patched' })
  for (const bad of [[{ op: 'jump', path: '/fields' }], [{ op: 'remove' }], [{ op: 'move', path: '/fields/x' }]]) {
    for (const type of ['application/json', 'application/json-patch+json']) {
      const res = await patch(bad, type)
      expect({ bad, type, status: res.status, error: res.body.error }).toEqual({ bad, type, status: 400, error: 'invalid_patch' })
    }
  }
})
