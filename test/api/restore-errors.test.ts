/**
 * spec.md "Restore: three 400 body shapes" and the rest of its error table, one test per row:
 * status, content type, and the whole body.
 */
import { expect, test } from 'bun:test'
import { TEAM, TOKENS } from '../helpers'
import { applySnapshot, applyVersion, DRAFT, ID, ok, publishedTwice, put, versionRefs, restoreFixture } from '../core/restore/fixtures'

const fx = restoreFixture({ publishedTwice: true })

const raw = (body: string | undefined, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fx.ctx.call('POST', `/content/apply-version/${TEAM}`, { body, headers })
const batch = (id: string, reason: string) => [{ id, status: 1, reason }]
const snapshot = async (documentId = ID) => (await ok(fx.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId } }), 201)).id as string

// --- problem details: only a missing, empty or `null` body ---

for (const [name, body, headers] of [
  ['no body at all', undefined, {}],
  ['an empty JSON body', '', { 'content-type': 'application/json' }],
  ['whitespace only', '  \n', { 'content-type': 'application/json' }],
  ['a literal null', 'null', { 'content-type': 'application/json' }],
] as const) {
  test(`400 problem details for ${name}`, async () => {
    const res = await raw(body, headers)
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toStartWith('application/problem+json')
    expect(Object.keys(res.body).sort()).toEqual(['errors', 'status', 'title'])
    expect(res.body.status).toBe(400)
    expect(typeof res.body.title).toBe('string')
    expect(Object.values(res.body.errors).flat().length).toBeGreaterThan(0)
  })
}

test('apply-snapshot answers problem details for a null body too', async () => {
  const res = await fx.ctx.call('POST', `/content/apply-snapshot/${TEAM}`, { body: 'null' })
  expect(res.status).toBe(400)
  expect(res.headers.get('content-type')).toStartWith('application/problem+json')
})

// --- object shape: refused before the store ---

test('malformed JSON is an object error, not problem details', async () => {
  const res = await raw('{"kind": ')
  expect(res.status).toBe(400)
  expect(res.headers.get('content-type')).toStartWith('application/json')
  expect(res.body).toEqual({ error: 'malformed_json', message: 'The request body is not valid JSON.' })
})

const objectRows: [string, unknown, string][] = [
  ['bad_kind (unknown kind)', { kind: 'draft', documentId: ID }, 'bad_kind'],
  ['bad_kind (no kind)', { documentId: ID, version: 'x' }, 'bad_kind'],
  ['missing_id', { kind: 'revision', version: 'QQ' }, 'missing_id'],
  ['missing_version', { kind: 'revision', documentId: ID }, 'missing_version'],
  ['missing_snapshot_id', { kind: 'snapshot', documentId: ID }, 'missing_snapshot_id'],
  ['mismatch', { kind: 'snapshot', documentId: 'pages/home', snapshotId: `${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA` }, 'mismatch'],
]
for (const [name, body, code] of objectRows) {
  test(`400 {error: ${code}} for ${name}`, async () => {
    const res = await applyVersion(fx.ctx, body)
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(Object.keys(res.body).sort()).toEqual(['error', 'message'])
    expect(res.body.error).toBe(code)
  })
}

test('400 {error: invalid_body} for an id or version of the wrong type: sent, not missing', async () => {
  for (const [body, field] of [
    [{ kind: 'revision', documentId: 5, version: fx.v1 }, 'documentId'],
    [{ kind: 'revision', documentId: ID, version: 7 }, 'version'],
    [{ kind: 'revision', documentId: [ID], version: fx.v1 }, 'documentId'],
    [{ kind: 'snapshot', snapshotId: { id: 'x' } }, 'snapshotId'],
    [{ kind: 'snapshot', snapshotId: `${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA`, documentId: true }, 'documentId'],
    // The field the kind does not use too: it was ignored, and the restore carried out.
    [{ kind: 'revision', documentId: ID, version: fx.v1, snapshotId: {} }, 'snapshotId'],
    [{ kind: 'revision', documentId: ID, version: fx.v1, snapshotId: 5 }, 'snapshotId'],
    [{ kind: 'snapshot', snapshotId: `${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA`, version: ['x'] }, 'version'],
  ] as const) {
    const res = await applyVersion(fx.ctx, body)
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: `\`${field}\` must be a string.` } })
  }
  // Absent, null and "" are missing, as spec.md's rows say.
  for (const documentId of [undefined, null, '']) expect((await applyVersion(fx.ctx, { kind: 'revision', documentId, version: fx.v1 })).body.error).toBe('missing_id')
})

test('400 {error: invalid_body} for a non-object body or a locales value that is not a list of codes', async () => {
  for (const body of ['[]', '"revision"', '42']) {
    const res = await raw(body)
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: 'The request body must be a JSON object.' } })
  }
  for (const locales of ['en', [1], { en: true }]) {
    const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: fx.v1, locales })
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: '`locales` must be null or a list of locale codes.' } })
  }
})

test('apply-snapshot: missing_snapshot_id and mismatch', async () => {
  expect((await applySnapshot(fx.ctx, { documentId: ID })).body.error).toBe('missing_snapshot_id')
  const id = await snapshot()
  expect((await applySnapshot(fx.ctx, { snapshotId: id, documentId: 'pages/home' })).body.error).toBe('mismatch')
})

test('apply-snapshot: a revision body sent here is refused (bad_kind, or invalid_body for `version`), not restored as the snapshot', async () => {
  const id = await snapshot()
  const kind = await applySnapshot(fx.ctx, { kind: 'revision', snapshotId: id })
  expect({ status: kind.status, body: kind.body }).toEqual({ status: 400, body: { error: 'bad_kind', message: expect.any(String) } })
  const version = await applySnapshot(fx.ctx, { snapshotId: id, version: 'AAAA' })
  expect({ status: version.status, body: version.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: 'Unknown field(s): "version".' } })
  expect((await fx.ctx.call('GET', `/content/${TEAM}?id=${ID}/draft`)).status).toBe(404)
  // `kind: "snapshot"` repeats what the path says and is fine.
  expect((await applySnapshot(fx.ctx, { kind: 'snapshot', snapshotId: id })).status).toBe(200)
})

// --- batch list 400 ---

// spec.md "Batch result item": `id` is the canonical id, also when a sibling was given.
for (const sibling of ['draft', 'scheduled', 'snapshot/AAAAAAAAAAAAAAAAAAAAAA']) {
  test(`400 batch: a ${sibling.split('/')[0]} sibling where a canonical is expected, answered under the canonical id`, async () => {
    const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: `${ID}/${sibling}`, version: fx.v1 })
    expect(res.status).toBe(400)
    expect(res.body).toEqual(batch(ID, 'Expected a canonical document id, not a sibling id.'))
  })
}

test('400 batch: an activity id where a canonical is expected is echoed (it is no sibling of spec.md)', async () => {
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: `${ID}/activity`, version: fx.v1 })
  expect(res.status).toBe(400)
  expect(res.body).toEqual(batch(`${ID}/activity`, 'Expected a canonical document id, not a sibling id.'))
})

test('400 batch: a malformed version reference', async () => {
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: 'not a reference!' })
  expect(res.status).toBe(400)
  expect(res.body).toEqual(batch(ID, 'The version reference is not well formed; pass it back verbatim.'))
})

test('400 batch: a snapshot id that is not a snapshot id', async () => {
  const reason = 'Expected a snapshot id of the shape `<document_id>/snapshot/<token>`.'
  for (const [body, id] of [
    [{ snapshotId: `${ID}/draft` }, ID],
    [{ snapshotId: `${ID}/scheduled` }, ID],
    [{ snapshotId: ID }, ID],
    [{ snapshotId: 'pages/other', documentId: `${ID}/draft` }, ID],
    [{ snapshotId: `${ID}/activity` }, `${ID}/activity`],
    // A snapshot id without its token still names its document.
    [{ snapshotId: `${ID}/snapshot/` }, ID],
    [{ snapshotId: `${ID}/snapshot` }, ID],
    [{ snapshotId: '../snapshot/' }, '../snapshot/'],
    // A sibling owns no snapshot: the item names its canonical.
    [{ snapshotId: `${ID}/draft/snapshot/AAAAAAAAAAAAAAAAAAAAAA` }, ID],
  ] as const) {
    const res = await applySnapshot(fx.ctx, body)
    expect({ body, status: res.status, answer: res.body }).toEqual({ body, status: 400, answer: batch(id, reason) })
  }
})

test('400 batch: an empty locales list', async () => {
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: fx.v1, locales: [] })
  expect(res.status).toBe(400)
  expect(res.body).toEqual(batch(ID, 'The locales list is empty; pass null to restore every locale.'))
})

test('400 batch: more than 64 locales, nothing echoed', async () => {
  const locales = Array.from({ length: 65 }, (_, i) => `zz-secret-${i}`)
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: fx.v1, locales })
  expect(res.status).toBe(400)
  expect(res.body).toEqual(batch(ID, 'Too many locales in request.'))
  expect(res.text).not.toContain('zz-secret')
})

test('64 locales are not "too many" (they are checked against the team instead)', async () => {
  const locales = Array.from({ length: 64 }, () => 'en')
  const [item] = await ok(applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: fx.v1, locales }))
  expect(item.status).toBe(0)
})

test('400 batch: unknown locales, at most five named', async () => {
  const locales = ['en', 'xa', 'xb', 'xc', 'xd', 'xe', 'xf', 'xg']
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: fx.v1, locales })
  expect(res.status).toBe(400)
  expect(res.body).toEqual(batch(ID, 'Unknown locale(s) for this team: "xa", "xb", "xc", "xd", "xe" and 2 more.'))
})

// --- 403 / 404 / 409 batch ---

test('403 batch: restoring into a published document without ChangeLiveContent; reading versions still works', async () => {
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: fx.v1 }, { token: TOKENS.translator })
  expect(res.status).toBe(403)
  expect(res.body).toEqual(batch(ID, 'Restoring into the draft of a published document requires the ChangeLiveContent capability.'))
  expect((await fx.ctx.call('GET', `/content/versions/${TEAM}?id=${ID}`, { token: TOKENS.translator })).status).toBe(200)
  expect((await fx.ctx.call('GET', `/content/version/${TEAM}?id=${ID}&version=${fx.v1}`, { token: TOKENS.translator })).status).toBe(200)
  expect((await fx.ctx.call('GET', `/content/history/${TEAM}?id=${ID}`, { token: TOKENS.translator })).status).toBe(200)
})

test('403 batch for a snapshot restore into a published document without ChangeLiveContent', async () => {
  const id = await snapshot()
  const res = await applySnapshot(fx.ctx, { snapshotId: id }, { token: TOKENS.translator })
  expect(res.status).toBe(403)
  expect(res.body[0]).toMatchObject({ id: ID, status: 1 })
})

test('404 batch: unknown document', async () => {
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: 'pages/nope', version: fx.v1 })
  expect(res.status).toBe(404)
  expect(res.body).toEqual(batch('pages/nope', 'Document not found.'))
})

test('404 batch: a version of another document', async () => {
  const [home] = await versionRefs(fx.ctx, 'pages/home')
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: home })
  expect(res.status).toBe(404)
  expect(res.body).toEqual(batch(ID, 'No such published version of this document.'))
})

test('404 batch: a well-formed reference that names no revision', async () => {
  const ref = Buffer.from('A:999999-nonode').toString('base64url')
  const res = await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: ref })
  expect(res.status).toBe(404)
  expect(res.body).toEqual(batch(ID, 'No such published version of this document.'))
})

test('404 batch: unknown snapshot', async () => {
  const res = await applySnapshot(fx.ctx, { snapshotId: `${ID}/snapshot/AAAAAAAAAAAAAAAAAAAAAA` })
  expect(res.status).toBe(404)
  expect(res.body).toEqual(batch(ID, 'Snapshot not found.'))
})

test('409 batch: revoked snapshot', async () => {
  const id = await snapshot()
  await ok(fx.ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id } }))
  const res = await applySnapshot(fx.ctx, { snapshotId: id })
  expect(res.status).toBe(409)
  expect(res.body).toEqual(batch(ID, 'The snapshot is revoked and can no longer be restored.'))
})

test('409 batch: expired snapshot', async () => {
  const expiresAt = new Date(Date.now() + 40).toISOString()
  const { id } = await ok(fx.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID, expiresAt } }), 201)
  await Bun.sleep(60)
  const res = await applyVersion(fx.ctx, { kind: 'snapshot', snapshotId: id })
  expect(res.status).toBe(409)
  expect(res.body).toEqual(batch(ID, 'The snapshot is expired and can no longer be restored.'))
})

// --- auth: object shape ---

test('401 without a token, 403 for a non-member or without EditContent', async () => {
  const body = { kind: 'revision', documentId: ID, version: fx.v1 }
  const none = await applyVersion(fx.ctx, body, { token: null as unknown as string })
  expect(none.status).toBe(401)
  expect(none.body).toEqual({ error: 'unauthorized', message: 'A valid bearer token is required.' })
  const outsider = await applyVersion(fx.ctx, body, { token: TOKENS.outsider })
  expect(outsider.status).toBe(403)
  expect(outsider.body.error).toBe('forbidden')
  const noEdit = await applySnapshot(fx.ctx, { snapshotId: 'x' }, { token: TOKENS.webhooks })
  expect(noEdit.status).toBe(403)
  expect(noEdit.body).toEqual({ error: 'forbidden', message: 'Missing capability: EditContent.' })
})

test('a refused restore writes nothing', async () => {
  await put(fx.ctx, DRAFT)
  const before = (await fx.ctx.call('GET', `/content/${TEAM}?id=${ID}/draft`)).body
  await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: fx.v1, locales: ['xx'] })
  await applyVersion(fx.ctx, { kind: 'revision', documentId: ID, version: fx.v1 }, { token: TOKENS.translator })
  expect((await fx.ctx.call('GET', `/content/${TEAM}?id=${ID}/draft`)).body).toEqual(before)
})
