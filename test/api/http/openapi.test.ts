import { afterAll, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import type { Static } from '@sinclair/typebox'
import { RestoreRequest } from '../../../api/restore/model'
import { createTestContext, TEAM } from '../../helpers'

const ctx = await createTestContext()
afterAll(() => ctx.close())

test('/swagger loads every script and style from this api, and each is served', async () => {
  const page = await ctx.call('GET', '/swagger', { token: null })
  expect(page.status).toBe(200)
  // Every address the page can load from: src and href attributes, CSS url() and @import.
  const refs = [...page.text.matchAll(/\b(?:src|href)\s*=\s*["']([^"']*)["']|url\(\s*["']?([^"')]*)|@import\s+["']([^"']*)/g)].map((m) => m[1] ?? m[2] ?? m[3]!)
  expect(refs.length).toBeGreaterThan(0)
  for (const ref of refs) {
    expect({ ref, local: ref.startsWith('/') && !ref.startsWith('//') }).toEqual({ ref, local: true })
    const res = await ctx.app.handle(new Request(new URL(ref, 'http://localhost/swagger').href))
    const size = (await res.arrayBuffer()).byteLength
    expect({ ref, status: res.status, type: res.headers.get('content-type'), big: size > 100_000 }).toEqual({ ref, status: 200, type: 'text/javascript; charset=utf-8', big: true })
  }
  // A browser that takes gzip gets the same script compressed.
  const plain = await (await ctx.app.handle(new Request(`http://localhost${refs[0]}`))).bytes()
  const zipped = await ctx.app.handle(new Request(`http://localhost${refs[0]}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } }))
  const bytes = await zipped.bytes()
  expect({ encoding: zipped.headers.get('content-encoding'), smaller: bytes.length < plain.length / 2 }).toEqual({ encoding: 'gzip', smaller: true })
  expect(Buffer.from(Bun.gunzipSync(new Uint8Array(bytes))).equals(Buffer.from(plain))).toBe(true)
  // No other host is named anywhere on the page, and Scalar is told not to fetch its web fonts or send telemetry.
  expect(page.text).not.toMatch(/https?:\/\//)
  expect(page.text).toContain('"withDefaultFonts":false')
  expect(page.text).toContain('"telemetry":false')
})

test('/swagger/json is byte-identical before and after every route has answered once', async () => {
  const fresh = await createTestContext()
  try {
    const before = await fresh.call('GET', '/swagger/json', { token: null })
    expect(before.status).toBe(200)
    const routes = fresh.app.routes.filter((r) => !r.path.startsWith('/swagger'))
    expect(routes.length).toBeGreaterThan(35)
    for (const route of routes) {
      const path = route.path.replace(/:(activeTeam|teamId)/g, TEAM).replace(/:[A-Za-z]+/g, 'x')
      await fresh.call(route.method, `${path}${route.method === 'GET' ? '?id=pages/home' : ''}`, route.method === 'GET' || route.method === 'HEAD' ? {} : { body: {} })
    }
    const after = await fresh.call('GET', '/swagger/json', { token: null })
    expect(after.text).toBe(before.text)
    // A second app in the same process documents the same bytes (no state shared between apps).
    expect((await ctx.call('GET', '/swagger/json', { token: null })).text).toBe(before.text)
  } finally {
    await fresh.close()
  }
})

test('the restore request is a union on `kind`: each kind names what it requires', async () => {
  const { paths, components } = (await ctx.call('GET', '/swagger/json', { token: null })).body
  expect(paths['/content/apply-version/{activeTeam}'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RestoreRequest' })
  const union = components.schemas.RestoreRequest
  expect(union.anyOf).toEqual([{ $ref: '#/components/schemas/RevisionRestoreRequest' }, { $ref: '#/components/schemas/SnapshotRestoreRequest' }])
  expect(union.discriminator).toEqual({ propertyName: 'kind', mapping: { revision: '#/components/schemas/RevisionRestoreRequest', snapshot: '#/components/schemas/SnapshotRestoreRequest' } })
  const revision = components.schemas.RevisionRestoreRequest
  const snapshot = components.schemas.SnapshotRestoreRequest
  expect({ kind: revision.properties.kind.const, required: revision.required, closed: revision.additionalProperties }).toEqual({ kind: 'revision', required: ['kind', 'documentId', 'version'], closed: false })
  expect({ kind: snapshot.properties.kind.const, required: snapshot.required, closed: snapshot.additionalProperties }).toEqual({ kind: 'snapshot', required: ['kind', 'snapshotId'], closed: false })
  // What a client may send by the document, the schema's own check agrees with.
  expect(Value.Check(RestoreRequest, { kind: 'revision' })).toBe(false)
  expect(Value.Check(RestoreRequest, { kind: 'revision', documentId: 'pages/home', version: 'v1' })).toBe(true)
  expect(Value.Check(RestoreRequest, { kind: 'snapshot', snapshotId: 'pages/home/snapshot/t', documentId: null, locales: ['de'] })).toBe(true)
})

// The type a client is built with refuses a revision without its reference at compile time
// (`tsc --noEmit` checks this file; an unused @ts-expect-error fails it).
// @ts-expect-error documentId and version are required for kind "revision"
export const refused: Static<typeof RestoreRequest> = { kind: 'revision' }
export const taken: Static<typeof RestoreRequest> = { kind: 'revision', documentId: 'pages/home', version: 'v1', locales: ['de'] }

test('the server still answers a bad restore body with spec.md\'s object shapes, not the schema\'s', async () => {
  const send = (body: unknown) => ctx.call('POST', `/content/apply-version/${TEAM}`, { body })
  expect((await send({ kind: 'revision' })).body).toEqual({ error: 'missing_id', message: '`documentId` is required for `kind: revision`.' })
  expect((await send({ kind: 'revision', documentId: 'pages/home' })).body).toEqual({ error: 'missing_version', message: '`version` is required for `kind: revision`.' })
  expect((await send({ kind: 'snapshot' })).body).toEqual({ error: 'missing_snapshot_id', message: '`snapshotId` is required for `kind: snapshot`.' })
  expect((await send({ kind: 'other' })).body).toEqual({ error: 'bad_kind', message: '`kind` must be `revision` or `snapshot`.' })
})
