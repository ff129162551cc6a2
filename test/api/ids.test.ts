/**
 * Ids with a lone UTF-16 surrogate. SQLite stores text as UTF-8, which has no encoding for a
 * lone surrogate: `pages/\ud800x` and `pages/\udfffx` would both be stored (and looked up) as
 * `pages/\ufffdx`. Such an id names no document: writes refuse it, reads do not find it, and it
 * never reaches the document stored under the replacement character.
 */
import { rows } from '../rows'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { countRevisions } from '../../db/store'
import { createTestContext, enc, TEAM, TOKENS, type TestContext } from '../helpers'

let ctx: TestContext
// A legitimate id: U+FFFD is an ordinary character. Every alias below would land on it.
const REAL = 'pages/\ufffdx'
const ALIASES = ['pages/\ud800x', 'pages/\udfffx', 'pages/x\ud800', '\udc00pages/x', 'pages/\ud800\ud800x']
let snapshotId: string
let version: string

beforeAll(async () => {
  ctx = await createTestContext()
  const doc = { id: REAL, contentType: 'page', fields: { parent: null }, locales: { en: { title: 'Real', slug: 'real' } } }
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
  expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [REAL] } })).body[0].status).toBe(0)
  snapshotId = (await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: REAL } })).body.id
  version = (await ctx.call('GET', `/content/versions/${TEAM}?id=${enc(REAL)}`)).body.rows[0].version
})
afterAll(() => ctx.close())

/** Everything stored about REAL, to check that a refused request changed nothing. */
async function realState() {
  const read = async (id: string) => (await ctx.call('GET', `/content/${TEAM}?id=${enc(id)}`)).body
  const history = (await ctx.call('GET', `/content/history/${TEAM}?id=${enc(REAL)}`)).body
  return { canonical: await read(REAL), draft: await read(`${REAL}/draft`), history, revisions: await countRevisions(ctx.db, TEAM, REAL) }
}

const invalidId = { error: 'invalid_id', message: expect.any(String) }

describe('an id with a lone surrogate', () => {
  test('is refused 400 invalid_id by POST, as a canonical or a draft, and nothing is stored', async () => {
    const before = await realState()
    for (const id of [...ALIASES, ...ALIASES.map((a) => `${a}/draft`)]) {
      const res = await ctx.call('POST', `/content/${TEAM}`, { body: { id, contentType: 'page', locales: { en: { title: 'Forged' } } } })
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 400, body: invalidId })
    }
    expect(await realState()).toEqual(before)
    const keys = (await rows(ctx.db, `SELECT id FROM documents WHERE id LIKE 'pages/%x%'`)).map((r) => r.id)
    expect(keys.every((k) => k.startsWith(REAL))).toBe(true)
  })

  test('two such ids no longer overwrite each other', async () => {
    const post = (id: string) => ctx.call('POST', `/content/${TEAM}`, { body: { id, contentType: 'page' } })
    expect((await post('pages/\ud800y')).status).toBe(400)
    expect((await post('pages/\udfffy')).status).toBe(400)
    expect((await ctx.call('GET', `/content/${TEAM}?id=${enc('pages/\ufffdy')}`)).status).toBe(404)
  })

  test('is an unknown document to publish and to every lifecycle operation', async () => {
    const before = await realState()
    for (const op of ['publish', 'unpublish', 'archive', 'delete', 'copy', 'discard-draft']) {
      const res = await ctx.call('POST', `/content/${op}/${TEAM}`, { body: { ids: ALIASES } })
      expect({ op, status: res.status, body: res.body }).toEqual({
        op, status: 200, body: ALIASES.map((id) => ({ id, status: 1, reason: 'Document not found.' })),
      })
    }
    expect(await realState()).toEqual(before)
  })

  test('is refused 400 invalid_id by schedule and snapshot create', async () => {
    const before = await realState()
    for (const id of ALIASES) {
      const schedule = await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id, publishAt: '2099-01-01T00:00:00Z' } })
      expect({ id, status: schedule.status, body: schedule.body }).toEqual({ id, status: 400, body: invalidId })
      const snapshot = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: id } })
      expect({ id, status: snapshot.status, body: snapshot.body }).toEqual({ id, status: 400, body: invalidId })
    }
    expect(await realState()).toEqual(before)
  })

  test('as a snapshot id, is refused 400 invalid_id by revoke and leaves the real snapshot active', async () => {
    const token = snapshotId.split('/').pop()
    for (const alias of ALIASES) {
      const res = await ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: `${alias}/snapshot/${token}` } })
      expect({ alias, status: res.status, body: res.body }).toEqual({ alias, status: 400, body: invalidId })
    }
    const { snapshots } = (await ctx.call('GET', `/content/history/${TEAM}?id=${enc(REAL)}`)).body
    expect(snapshots.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([[snapshotId, 'active']])
  })

  test('is an unknown document to apply-version and apply-snapshot (404 batch list), and no draft appears', async () => {
    const token = snapshotId.split('/').pop()
    for (const alias of ALIASES) {
      const revision = await ctx.call('POST', `/content/apply-version/${TEAM}`, { body: { kind: 'revision', documentId: alias, version } })
      expect({ status: revision.status, body: revision.body }).toEqual({ status: 404, body: [{ id: alias, status: 1, reason: 'Document not found.' }] })
      const snapshot = await ctx.call('POST', `/content/apply-snapshot/${TEAM}`, { body: { snapshotId: `${alias}/snapshot/${token}` } })
      expect({ status: snapshot.status, body: snapshot.body }).toEqual({ status: 404, body: [{ id: alias, status: 1, reason: 'Document not found.' }] })
    }
    expect((await ctx.call('GET', `/content/${TEAM}?id=${enc(`${REAL}/draft`)}`)).status).toBe(404)
  })
})

describe('every canonical id leaves room for its siblings', () => {
  const post = (body: unknown) => ctx.call('POST', `/content/${TEAM}`, { body })
  const doc = (id: string) => ({ id, contentType: 'page', fields: { parent: null }, locales: { en: { title: 'Long', slug: 'long' } } })

  test('the longest canonical id (480 characters) has a draft, a snapshot and a restore', async () => {
    const id = `pages/${'l'.repeat(474)}`
    expect(id.length).toBe(480)
    expect((await post(doc(id))).status).toBe(200)
    expect((await post(doc(`${id}/draft`))).status).toBe(200)
    const snap = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: id } })
    expect(snap.status).toBe(201)
    expect(snap.body.id.length).toBe(512)
    const restore = await ctx.call('POST', `/content/apply-snapshot/${TEAM}`, { body: { snapshotId: snap.body.id } })
    expect(restore.body[0]).toMatchObject({ id, status: 0 })
  })

  test('481 characters, or a last segment `snapshot`, is 400 invalid_id and writes nothing', async () => {
    for (const id of [`pages/${'l'.repeat(475)}`, 'pages/snapshot', 'snap/shot/snapshot']) {
      const res = await post(doc(id))
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 400, body: { error: 'invalid_id', message: expect.any(String) } })
      expect((await ctx.call('GET', `/content/${TEAM}?id=${enc(id)}`)).status).toBe(404)
      const snap = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: id } })
      expect({ id, status: snap.status, error: snap.body.error }).toEqual({ id, status: 400, error: 'invalid_id' })
    }
  })

  test('an id past the 512-character cap of every id string names the limits that matter, not the validator\'s', async () => {
    const tooLong = '`id` is too long: a document id has at most 480 characters, a snapshot id at most 512.'
    const id = `pages/${'l'.repeat(600)}`
    expect((await post(doc(id))).body).toEqual({ error: 'invalid_id', message: tooLong })
    expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id, publishAt: '2030-01-01T00:00:00Z' } })).body).toEqual({ error: 'invalid_id', message: tooLong })
    expect((await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: id } })).body)
      .toEqual({ error: 'invalid_id', message: tooLong.replace('`id`', '`documentId`') })
    // A path's `id` (a webhook's, capped at 200) is no document id: the validator's own words, its limit.
    const hook = await ctx.call('GET', `/teams/${TEAM}/webhooks/${'x'.repeat(600)}/deliveries`, { token: TOKENS.webhooks })
    expect(hook.body).toEqual({ error: 'invalid_body', message: 'Invalid request: /id Expected string length less or equal to 200' })
  })
})
