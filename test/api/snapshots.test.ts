/** Snapshot endpoints of contract.md: create, rename, revoke, and their errors. */
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { createTestContext, enc, TEAM, type TestContext } from '../helpers'
import { bare, DRAFT, ID, ok, publishedTwice, put, read, V2 } from '../core/restore/fixtures'

let ctx: TestContext
beforeEach(async () => {
  ctx = await createTestContext()
  await publishedTwice(ctx)
})
afterEach(() => ctx.close())

const create = (body: unknown) => ctx.call('POST', `/content/snapshots/${TEAM}`, { body })
const TOKEN = /^pages\/about\/snapshot\/[A-Za-z0-9_-]{22}$/

test('201: snapshot of the draft, record shape, body stored under the snapshot id', async () => {
  await put(ctx, DRAFT)
  const res = await create({ documentId: ID, name: 'Before the rewrite' })
  expect(res.status).toBe(201)
  expect(res.body.id).toMatch(TOKEN)
  expect(res.body).toEqual({
    id: res.body.id, documentId: ID, name: 'Before the rewrite', status: 'active',
    createdAt: res.body.createdAt, createdBy: 'u-editor', expiresAt: null,
  })
  expect(Date.parse(res.body.createdAt)).toBeGreaterThan(Date.now() - 60_000)
  // The copy carries the draft's content, without the draft's dirty set.
  expect(bare((await read(ctx, res.body.id)).body)).toEqual({ ...DRAFT, id: res.body.id })
})

test('without a draft the snapshot is of the canonical, stamp stripped', async () => {
  const { body } = await create({ documentId: ID })
  const stored = bare((await read(ctx, body.id)).body)
  expect(stored).toEqual({ ...V2, id: body.id })
  expect(stored).not.toHaveProperty('__publishedBy')
})

test('tokens are unguessable: distinct across snapshots', async () => {
  const ids = new Set<string>()
  for (let i = 0; i < 20; i++) ids.add((await create({ documentId: ID })).body.id)
  expect(ids.size).toBe(20)
})

test('expiresAt is kept (normalised to UTC) and the status turns expired when it passes', async () => {
  const at = new Date(Date.now() + 50)
  const { body } = await create({ documentId: ID, expiresAt: at.toISOString() })
  expect(body).toMatchObject({ status: 'active', expiresAt: at.toISOString() })
  await Bun.sleep(70)
  const renamed = await ok(ctx.call('PATCH', `/content/snapshots/${TEAM}?id=${enc(body.id)}`, { body: { name: 'old' } }))
  expect(renamed).toEqual({ ...body, name: 'old', status: 'expired' })
})

test('PATCH renames; POST revoke revokes (idempotently)', async () => {
  const { body } = await create({ documentId: ID, name: 'a' })
  const renamed = await ok(ctx.call('PATCH', `/content/snapshots/${TEAM}?id=${enc(body.id)}`, { body: { name: 'b' } }))
  expect(renamed).toEqual({ ...body, name: 'b' })
  const revoked = await ok(ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: body.id } }))
  expect(revoked).toEqual({ ...body, name: 'b', status: 'revoked' })
  expect(await ok(ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: body.id } }))).toEqual(revoked)
  expect(await ok(ctx.call('PATCH', `/content/snapshots/${TEAM}?id=${enc(body.id)}`, { body: { name: null } }))).toEqual({ ...revoked, name: null })
})

test('create errors', async () => {
  const cases: [unknown, number, string][] = [
    [{}, 400, 'missing_id'],
    [{ documentId: `${ID}/draft` }, 400, 'sibling_id'],
    [{ documentId: 'pages/../x' }, 400, 'invalid_id'],
    [{ documentId: ID, expiresAt: 'tomorrow-ish' }, 400, 'bad_expiry'],
    [{ documentId: ID, expiresAt: '2000-01-01T00:00:00Z' }, 400, 'bad_expiry'],
    // An impossible calendar date is refused, not rolled over to March 3rd.
    [{ documentId: ID, expiresAt: '2030-02-31T00:00:00Z' }, 400, 'bad_expiry'],
    // Without an offset the server's time zone would decide; `Date.parse` also reads prose dates.
    [{ documentId: ID, expiresAt: '2099-01-01T00:00:00' }, 400, 'bad_expiry'],
    [{ documentId: ID, expiresAt: 'Jan 1 2099' }, 400, 'bad_expiry'],
    // A lower-case `t` is RFC 3339 too; the calendar check holds for it as well.
    [{ documentId: ID, expiresAt: '2030-02-31t00:00:00Z' }, 400, 'bad_expiry'],
    [{ documentId: ID, name: 'x'.repeat(201) }, 400, 'invalid_name'],
    // Stored as UTF-8, a lone surrogate would read back as U+FFFD; a label is one line.
    [{ documentId: ID, name: 'a\ud800' }, 400, 'invalid_name'],
    [{ documentId: ID, name: 'two\nlines' }, 400, 'invalid_name'],
    [{ documentId: ID, name: 'nul\u0000' }, 400, 'invalid_name'],
    [{ documentId: ID, name: 42 }, 400, 'invalid_body'],
    [{ documentId: 'pages/nope' }, 404, 'not_found'],
  ]
  for (const [body, status, error] of cases) {
    const res = await create(body)
    expect({ status: res.status, error: res.body.error, keys: Object.keys(res.body).sort() }).toEqual({ status, error, keys: ['error', 'message'] })
  }
  // A time without its offset is valid ISO 8601: the message says what is missing, as schedule's does.
  expect((await create({ documentId: ID, expiresAt: '2099-01-01T00:00:00' })).body.message)
    .toBe('`expiresAt` must be an RFC 3339 timestamp with its offset, e.g. `2030-01-01T09:00:00Z`, and a real calendar date.')
})

test('rename and revoke errors', async () => {
  const cases: [string, string, unknown, number, string][] = [
    ['PATCH', `/content/snapshots/${TEAM}`, { name: 'x' }, 400, 'missing_id'],
    ['PATCH', `/content/snapshots/${TEAM}?id=${enc(ID)}`, { name: 'x' }, 400, 'invalid_id'],
    ['PATCH', `/content/snapshots/${TEAM}?id=${enc(`${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA`)}`, { name: 'x' }, 404, 'not_found'],
    ['PATCH', `/content/snapshots/${TEAM}?id=${enc(`${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA`)}`, { name: '\udfff' }, 400, 'invalid_name'],
    ['PATCH', `/content/snapshots/${TEAM}?id=${enc(`${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA`)}`, { name: 'y'.repeat(201) }, 400, 'invalid_name'],
    ['POST', `/content/snapshots/revoke/${TEAM}`, {}, 400, 'missing_id'],
    ['POST', `/content/snapshots/revoke/${TEAM}`, { id: `${ID}/draft` }, 400, 'invalid_id'],
    ['POST', `/content/snapshots/revoke/${TEAM}`, { id: `${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA` }, 404, 'not_found'],
  ]
  for (const [method, url, body, status, error] of cases) {
    const res = await ctx.call(method, url, { body })
    expect({ url, status: res.status, error: res.body.error }).toEqual({ url, status, error })
  }
})

test('snapshots are per team: another team cannot see or revoke them', async () => {
  const { body } = await create({ documentId: ID })
  const res = await ctx.call('POST', `/content/snapshots/revoke/other`, { body: { id: body.id }, token: 'tok-outsider-000' })
  expect(res.status).toBe(404)
})
