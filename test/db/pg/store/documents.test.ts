/**
 * The document store on PostgreSQL (db/pg/store.ts): documents and change vectors on a real
 * server, a fresh database for this file. Round trips, the optimistic concurrency of SQLite
 * (ConcurrencyError, nothing written), and two connections saving with the same expected change
 * vector at once: exactly one wins.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { pgClientOptions } from '../../../../db/pg/client'
import { ConcurrencyError as SqliteConcurrencyError } from '../../../../db/store'
import { CHANGE_VECTOR, ConcurrencyError, deleteDoc, loadDoc, nextChangeVector, saveDoc } from '../../../../db/pg/store'
import { describePg, pgDatabase, type PgTestDatabase } from '../../../pg/harness'

const TEAM = 'acme'
const doc = (id: string, body: Record<string, unknown> = { id }) => ({ teamId: TEAM, id, canonicalId: id.split('/').slice(0, 2).join('/'), kind: 'canonical' as const, collection: 'pages', body })

describePg('the document store on PostgreSQL', () => {
  let d: PgTestDatabase
  let sql: SQL
  let other: SQL
  const etag = async () => Number((await sql`SELECT value FROM meta WHERE key = 'etag'`)[0]?.value ?? 0)
  beforeAll(async () => {
    d = await pgDatabase()
    sql = new SQL(pgClientOptions(d.url, { processName: 'test', poolSize: 4 }))
    other = new SQL(pgClientOptions(d.url, { processName: 'test other', poolSize: 1 }))
    await sql`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES (${TEAM}, 'main', '["en"]'::json, 'en', '2026-01-01T00:00:00.0000000Z')`
  })
  afterAll(async () => {
    await other?.close()
    await sql?.close()
    await d?.drop()
  })

  test('change vectors: A:<etag>-<node>, the counter bumped by one, the node fixed; a rolled-back bump is undone', async () => {
    const first = await sql.begin((tx) => nextChangeVector(tx))
    const second = await sql.begin((tx) => nextChangeVector(tx))
    expect(first).toMatch(CHANGE_VECTOR)
    const [, n1, node1] = first.match(/^A:(\d+)-(.+)$/)!
    const [, n2, node2] = second.match(/^A:(\d+)-(.+)$/)!
    expect([Number(n2) - Number(n1), node2, node1!.length]).toEqual([1, node1, 22])
    await expect(sql.begin(async (tx) => {
      await nextChangeVector(tx)
      throw new Error('changed my mind')
    })).rejects.toThrow('changed my mind')
    // Unlike a SEQUENCE, the bump was part of the transaction: the next one is the next number.
    expect(await sql.begin((tx) => nextChangeVector(tx))).toBe(`A:${Number(n2) + 1}-${node1}`)
  })

  test('save and load: the row as written, the body with its key order, flags and deletedAt kept unless given', async () => {
    const body = { title: 'Hello 👋', z: 1, a: { y: [1, 2.5, null], x: 'é\n"' }, __publishedAt: '2026-03-01T10:20:30.1234567Z' }
    const created = await sql.begin((tx) => saveDoc(tx, { ...doc('pages/home', body), expect: null, published: true }))
    expect(created).toEqual({ ...doc('pages/home', body), changeVector: expect.stringMatching(CHANGE_VECTOR), published: true, archived: false, deletedAt: null, updatedAt: expect.any(String) })
    const loaded = await loadDoc(sql, TEAM, 'pages/home')
    expect(loaded).toEqual(created)
    expect(JSON.stringify(loaded!.body)).toBe(JSON.stringify(body))
    // expect undefined: no check; published and deletedAt not given are kept, archived given is written.
    const soft = await sql.begin((tx) => saveDoc(tx, { ...doc('pages/home', { v: 2 }), deletedAt: '2026-03-02T00:00:00.0000000Z' }))
    const kept = await sql.begin((tx) => saveDoc(tx, { ...doc('pages/home', { v: 3 }), archived: true }))
    expect(kept).toMatchObject({ published: true, archived: true, deletedAt: '2026-03-02T00:00:00.0000000Z', body: { v: 3 } })
    expect(kept.changeVector).not.toBe(soft.changeVector)
    const cleared = await sql.begin((tx) => saveDoc(tx, { ...doc('pages/home', { v: 4 }), expect: kept.changeVector, deletedAt: null, published: false }))
    expect(cleared).toMatchObject({ published: false, archived: true, deletedAt: null })
    expect(await loadDoc(sql, TEAM, 'pages/home')).toEqual(cleared)
    // canonical_id and kind are written once and never changed by an update.
    await sql.begin((tx) => saveDoc(tx, { ...doc('pages/home', { v: 5 }), canonicalId: 'pages/other', kind: 'draft' }))
    expect(await loadDoc(sql, TEAM, 'pages/home')).toMatchObject({ canonicalId: 'pages/home', kind: 'canonical', body: { v: 5 } })
    expect(await loadDoc(sql, TEAM, 'pages/none')).toBeNull()
    expect(await loadDoc(sql, 'other-team', 'pages/home')).toBeNull()
  })

  test('optimistic concurrency as on SQLite: a wrong expectation writes nothing and throws the same ConcurrencyError', async () => {
    const row = await sql.begin((tx) => saveDoc(tx, { ...doc('pages/oc'), expect: null }))
    const before = await etag()
    for (const expect_ of [null, 'A:1-nope']) {
      const err = await sql.begin((tx) => saveDoc(tx, { ...doc('pages/oc', { lost: true }), expect: expect_ })).catch((e) => e)
      expect(err).toBeInstanceOf(ConcurrencyError)
      expect(err).toBeInstanceOf(SqliteConcurrencyError)
    }
    // Expecting a vector for a document that does not exist, and the caller's `current` disagreeing with `expect`.
    expect(await sql.begin((tx) => saveDoc(tx, { ...doc('pages/absent'), expect: row.changeVector })).catch((e) => e)).toBeInstanceOf(ConcurrencyError)
    expect(await sql.begin((tx) => saveDoc(tx, { ...doc('pages/oc'), expect: 'A:2-x', current: row })).catch((e) => e)).toBeInstanceOf(ConcurrencyError)
    expect(await loadDoc(sql, TEAM, 'pages/oc')).toEqual(row)
    expect(await loadDoc(sql, TEAM, 'pages/absent')).toBeNull()
    expect(await etag()).toBe(before) // every failed transaction rolled its bump back
    // Delete: a wrong expectation throws, none or the right one deletes; a missing row is false.
    expect(await deleteDoc(sql, TEAM, 'pages/oc', 'A:1-nope').catch((e) => e)).toBeInstanceOf(ConcurrencyError)
    expect(await deleteDoc(sql, TEAM, 'pages/oc', row.changeVector)).toBe(true)
    expect(await deleteDoc(sql, TEAM, 'pages/oc')).toBe(false)
    expect(await deleteDoc(sql, TEAM, 'pages/oc', row.changeVector)).toBe(false)
    await sql.begin((tx) => saveDoc(tx, { ...doc('pages/oc'), expect: null }))
    expect(await deleteDoc(sql, TEAM, 'pages/oc')).toBe(true)
    expect(await loadDoc(sql, TEAM, 'pages/oc')).toBeNull()
  })

  test('a canonical whose body holds a NUL character is kept as on SQLite, and the page-parent index still reads its parent', async () => {
    // json's `->` cannot turn \u0000 into text (SQLSTATE 22P05); the index reads the body through nul_safe_json.
    const saved = await sql.begin((tx) => saveDoc(tx, { ...doc('pages/nulbody', { x: 'a\u0000b', fields: { parent: 'pages/p' } }), expect: null }))
    expect((await loadDoc(sql, TEAM, 'pages/nulbody'))!.body).toEqual(saved.body)
    const [row] = await sql`SELECT id FROM documents WHERE team_id = ${TEAM} AND kind = 'canonical' AND ((nul_safe_json(body) -> 'fields') ->> 'parent') = 'pages/p'`
    expect(row?.id).toBe('pages/nulbody')
  })

  test('ids PostgreSQL cannot keep as given are neither written nor read', async () => {
    await sql.begin((tx) => saveDoc(tx, doc('pages/a\ufffd')))
    await expect(sql.begin((tx) => saveDoc(tx, doc('pages/a\ud800')))).rejects.toThrow('lone surrogate')
    await expect(sql.begin((tx) => saveDoc(tx, doc('pages/nul\u0000')))).rejects.toThrow('NUL')
    expect(await loadDoc(sql, TEAM, 'pages/a\udfff')).toBeNull()
    expect(await loadDoc(sql, TEAM, 'pages/nul\u0000')).toBeNull()
    expect(await deleteDoc(sql, TEAM, 'pages/a\udfff')).toBe(false)
    expect((await loadDoc(sql, TEAM, 'pages/a\ufffd'))?.body).toEqual({ id: 'pages/a\ufffd' })
  })

  test('two connections save with the same expected change vector at once: exactly one wins, the other gets ConcurrencyError', async () => {
    const base = await sql.begin((tx) => saveDoc(tx, { ...doc('pages/race'), expect: null }))
    let expected = base.changeVector
    for (let round = 0; round < 20; round++) {
      // Both read the same row, then both save. One of them (by turns) keeps its transaction open a
      // moment after its save: when it saved first, the other's statement waits on it meanwhile.
      let bothRead!: () => void
      let reads = 0
      const read = new Promise<void>((r) => (bothRead = r))
      const writer = (client: SQL, who: string, holdMs: number) =>
        client.begin(async (tx) => {
          const current = await loadDoc(tx, TEAM, 'pages/race')
          if (++reads === 2) bothRead()
          await read
          const saved = await saveDoc(tx, { ...doc('pages/race', { who, round }), expect: current!.changeVector })
          await Bun.sleep(holdMs)
          return saved
        })
      const results = await Promise.allSettled([writer(sql, 'a', round % 2 ? 0 : 30), writer(other, 'b', round % 2 ? 30 : 0)])
      const won = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof saveDoc>>>).value)
      const lost = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason)
      expect({ won: won.length, lost: lost.map((e) => e instanceof ConcurrencyError) }).toEqual({ won: 1, lost: [true] })
      expect(await loadDoc(sql, TEAM, 'pages/race')).toEqual(won[0]!)
      expect(won[0]!.changeVector).not.toBe(expected)
      expected = won[0]!.changeVector
    }
    // And two creates of one new id: one row, one ConcurrencyError.
    const creates = await Promise.allSettled([sql, other].map((client, i) => client.begin((tx) => saveDoc(tx, { ...doc('pages/new', { i }), expect: null }))))
    expect(creates.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect((creates.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError)
  })

  test('writers that take change vectors are serialised: a second writer waits for the first to end; 40 at once get 40 consecutive etags', async () => {
    let firstCommitted = 0
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let firstSaved!: () => void
    const saved = new Promise<void>((r) => (firstSaved = r))
    const first = sql.begin(async (tx) => {
      const row = await saveDoc(tx, doc('pages/first'))
      firstSaved()
      await held
      return row
    }).then((row) => ((firstCommitted = performance.now()), row))
    await saved
    const second = other.begin((tx) => saveDoc(tx, doc('pages/second'))).then((row) => ({ row, at: performance.now() }))
    await Bun.sleep(100)
    expect(await loadDoc(sql, TEAM, 'pages/second')).toBeNull() // still waiting for the counter
    release()
    const [a, b] = await Promise.all([first, second])
    const etagOf = (cv: string) => Number(cv.match(/^A:(\d+)-/)![1])
    expect(etagOf(b.row.changeVector)).toBe(etagOf(a.changeVector) + 1)
    expect(b.at).toBeGreaterThanOrEqual(firstCommitted)

    const start = await etag()
    const etags = await Promise.all(Array.from({ length: 40 }, (_, i) => sql.begin((tx) => saveDoc(tx, doc(`pages/many-${i}`))).then((row) => etagOf(row.changeVector))))
    expect(etags.toSorted((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => start + 1 + i))
  })
})
