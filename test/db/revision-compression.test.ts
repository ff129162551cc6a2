/**
 * Revision bodies stored compressed (db/revision-body.ts), with each version row's fields beside
 * them (`summary`), and the background conversion of rows
 * written as plain text (dispatcher/compress-revisions.ts): every read answers the same bytes
 * before, during and after the conversion, through the real api and the real dispatcher pass.
 */
import { sqliteOf } from '../dialect'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { compressRevisions } from '../../dispatcher/compress-revisions'
import { createDispatcher } from '../../dispatcher/loop'
import { createLogger } from '../../core/log'
import { decodeBody, decodeStored, encodeDelta, encodeFull, KEYFRAME_EVERY, keyframeBytes, type StoredBody } from '../../db/revision-body'
import { createTestContext, enc, TEAM, type TestContext } from '../helpers'
import { bare, ok, publish, put, versionRefs } from '../core/restore/fixtures'

let ctx: TestContext
const DOCS = { 'pages/long': 2 * KEYFRAME_EVERY + 5, 'pages/short': 3 }
const LOCALES = [['en', 'de', 'fr'], ['en', 'de'], ['en'], ['de', 'fr']]

beforeAll(async () => {
  ctx = await createTestContext()
  for (const [id, n] of Object.entries(DOCS)) {
    for (let i = 0; i < n; i++) {
      const locales = Object.fromEntries(LOCALES[i % LOCALES.length]!.map((l) => [l, { title: `${l} ${id} v${i} ${'ü€😀 '.repeat(i % 5)}`, slug: `${l}-${i}` }]))
      await put(ctx, { id, contentType: 'page', fields: { parent: 'pages/home', sku: `sku-${i % 7}` }, locales })
      await publish(ctx, id)
    }
  }
})
const DRAFT = { id: 'pages/long/draft', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'draft', slug: 'd' } } }
afterAll(() => ctx.close())

type Row = { seq: number; ordinal: number; document_id: string; body: StoredBody }
const rows = () => sqliteOf(ctx.db).$client.query('SELECT seq, ordinal, document_id, body FROM revisions ORDER BY seq').all() as Row[]
const plainLeft = () => (sqliteOf(ctx.db).$client.query(`SELECT count(*) AS n FROM revisions INDEXED BY revisions_plain WHERE typeof(body) = 'text'`).get() as { n: number }).n

/** Every read that shows a revision body, as the client receives it (bytes), plus restore results. */
async function reads(): Promise<string[]> {
  const out: string[] = []
  // The restores below rewrite the draft: each round starts from the same one.
  await put(ctx, DRAFT)
  for (const id of Object.keys(DOCS)) {
    for (const start of [0, 7, 30]) out.push((await ctx.call('GET', `/content/versions/${TEAM}?id=${enc(id)}&start=${start}&pageSize=9`)).text)
    for (const ref of await allRefs(id)) out.push((await ctx.call('GET', `/content/version/${TEAM}?id=${enc(id)}&version=${ref}`)).text)
    // The draft's write time is the one part of History that is not a revision's.
    out.push((await ctx.call('GET', `/content/history/${TEAM}?id=${enc(id)}`)).text.replace(/"updatedAt":"[^"]*"/, '"updatedAt":"(draft)"'))
  }
  const refs = await allRefs('pages/long')
  for (const ref of [refs[0]!, refs[5]!, refs.at(-1)!]) {
    for (const locales of [null, ['de', 'fr']]) {
      const [item] = await ok(ctx.call('POST', `/content/apply-version/${TEAM}`, { body: { kind: 'revision', documentId: 'pages/long', version: ref, locales } }))
      out.push(JSON.stringify(bare(item.document)))
    }
  }
  return out
}

async function allRefs(id: string): Promise<string[]> {
  const page = await ok(ctx.call('GET', `/content/versions/${TEAM}?id=${enc(id)}&pageSize=100`))
  return page.rows.map((r: { version: string }) => r.version)
}

/** Each Published Version's version-row fields, as stored and as its body says. */
const summaries = () => (sqliteOf(ctx.db).$client.query('SELECT summary FROM revisions ORDER BY seq').all() as { summary: string | null }[]).map((r) => r.summary && JSON.parse(r.summary))
const expectedSummaries = () => rows().map((r) => {
  const body = JSON.parse(decodeStored(sqliteOf(ctx.db).$client, r.body))
  return [body.__publishedAt, body.__publishedBy, Object.keys(body.locales)]
})

test('publish stores a keyframe every KEYFRAME_EVERY ordinals and deltas against it in between, and the version row fields', () => {
  expect(summaries()).toEqual(expectedSummaries())
  for (const r of rows()) {
    expect(r.body).toBeInstanceOf(Uint8Array)
    const bytes = r.body as Uint8Array
    expect({ ordinal: r.ordinal, tag: bytes[0] }).toEqual({ ordinal: r.ordinal, tag: (r.ordinal - 1) % KEYFRAME_EVERY === 0 ? 1 : 2 })
  }
  // Deltas are much smaller than the text they stand for.
  const long = rows().filter((r) => r.document_id === 'pages/long' && (r.ordinal - 1) % KEYFRAME_EVERY !== 0)
  const text = long.reduce((n, r) => n + Buffer.byteLength(decodeStored(sqliteOf(ctx.db).$client, r.body)), 0)
  const stored = long.reduce((n, r) => n + (r.body as Uint8Array).length, 0)
  expect(stored / text).toBeLessThan(0.25)
})

test('plain-text rows (as written before compression) read the same before, during and after the background conversion', async () => {
  const compressed = await reads()
  expect(await versionRefs(ctx, 'pages/long')).toHaveLength(25)
  // The database as an older api left it: every body the JSON text it wrote.
  const c = sqliteOf(ctx.db).$client
  for (const r of rows()) c.query('UPDATE revisions SET body = ?, summary = NULL WHERE seq = ?').run(decodeStored(c, r.body), r.seq)
  const total = rows().length
  expect(plainLeft()).toBe(total)
  const before = await reads()
  expect(before).toEqual(compressed)

  // A few small batches: some rows compressed (deltas pointing at keyframes still in text, and
  // the other way round), the rest not yet.
  expect(compressRevisions(sqliteOf(ctx.db), 5)).toBe(5)
  expect(compressRevisions(sqliteOf(ctx.db), 11, () => false)).toBe(0) // the lock was taken: nothing written
  expect(compressRevisions(sqliteOf(ctx.db), 11)).toBe(11)
  expect(plainLeft()).toBe(total - 16)
  expect(await reads()).toEqual(before)

  // The rest through the dispatcher's own pass, as in production.
  const dispatcher = createDispatcher({ db: ctx.db, log: createLogger('silent', 'test'), metrics: ctx.metrics, pollMs: 50 })
  while (plainLeft() > 0) await dispatcher.runOnce()
  expect(rows().every((r) => r.body instanceof Uint8Array)).toBe(true)
  expect(summaries()).toEqual(expectedSummaries())
  expect(await reads()).toEqual(before)
  expect(compressRevisions(sqliteOf(ctx.db))).toBe(0)
})

test('the codec gives back the exact text: unicode, escapes, edits, a delta against any keyframe', () => {
  const doc = (title: string, n: number) => JSON.stringify({ id: 'pages/x', locales: { en: { title, body: 'lorem ipsum dolor sit amet '.repeat(n) }, de: { title: `${title} ü€😀`, body: 'x' } } })
  const texts = [
    '{}', JSON.stringify({ a: '\u2028 \\ " \ud83d\ude00', b: [1.5e300, -0, null] }), JSON.stringify({ long: 'x'.repeat(100_000) }),
    doc('one', 20), doc('two', 20), doc('one', 21), doc('😀 one', 19), doc('', 0),
  ]
  const none = () => new Uint8Array()
  for (const text of texts) {
    expect(decodeBody(encodeFull(text), none)).toBe(text)
    for (const base of texts) {
      const stored = encodeDelta(text, 300_000, base)
      expect(decodeBody(stored, (seq) => (seq === 300_000 ? keyframeBytes(encodeFull(base)) : none()))).toBe(text)
      expect(stored.length).toBeLessThanOrEqual(encodeFull(text).length) // never longer than the text on its own
    }
  }
  // A small edit of a long text is a few bytes: copies, and the new bytes.
  expect(encodeDelta(doc('two', 20), 1, doc('one', 20)).length).toBeLessThan(24)
  expect(() => decodeBody(new Uint8Array([9, 1, 2]), none)).toThrow('Unknown revision body encoding 9')
  expect(() => decodeBody(encodeDelta(doc('two', 20), 1, doc('one', 20)).subarray(0, 12), () => keyframeBytes(doc('one', 20)))).toThrow('A revision body delta')
})
