/**
 * Revisions on PostgreSQL (db/pg/store.ts) against SQLite's (db/store.ts): the same sequence of
 * writes into a fresh SQLite file and a fresh PostgreSQL database gives byte-identical stored
 * bodies (keyframes, deltas naming the same keyframe seq, and a revision stored whole because its
 * delta was longer), the same summaries and locales, and the same decoded reads. Then the version
 * page's plan: a seek on the dense ordinal, no sort, a deep page as cheap as the first.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { pgClientOptions } from '../../../../db/pg/client'
import * as lite from '../../../../db/store'
import * as pg from '../../../../db/pg/store'
import { describePg, pgDatabase, type PgTestDatabase } from '../../../pg/harness'
import { sqliteTwin, type SqliteTwin } from '../sqlite-twin'

const TEAM = 'acme'

/** A fixed pseudo-random text (the same on both sides), which no delta can shorten much. */
function noise(seed: number, length: number): string {
  let x = seed
  let out = ''
  while (out.length < length) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    out += (x >>> 8).toString(36)
  }
  return out.slice(0, length)
}

/** The writes: 40 revisions of one document and 13 of another, interleaved, most of them stamped. */
function writes(): { documentId: string; body: Record<string, unknown>; stamped: boolean }[] {
  const out: { documentId: string; body: Record<string, unknown>; stamped: boolean }[] = []
  for (let i = 1; i <= 40; i++) {
    const locales: Record<string, unknown> = { en: { title: `Title ${i}` } }
    if (i > 10) locales.de = { title: `Titel ${i}`, text: 'Grüße ' + 'ä'.repeat(i) }
    if (i === 26) locales['fr-CA'] = { title: 'Bonjour 👋' }
    const body: Record<string, unknown> = {
      id: 'pages/a', fields: { text: 'lorem ipsum dolor '.repeat(30) + i, n: i, list: [1, 2.5, null, true] },
      locales, __publishedAt: `2026-03-01T10:${String(i).padStart(2, '0')}:00.123456${i % 10}Z`, __publishedBy: i === 7 ? 42 : 'editor',
    }
    if (i === 20) body.fields = { text: noise(i, 3000) } // its delta is longer than a zstd frame of it
    out.push({ documentId: 'pages/a', body, stamped: i % 5 !== 0 })
    if (i % 3 === 0) out.push({ documentId: 'pages/b', body: { id: 'pages/b', z: i, a: 'x'.repeat(i * 10), locales: { en: {} } }, stamped: true })
  }
  return out
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const withoutStoreFields = <T extends { changeVector: string; createdAt?: string }>(rows: T[]) => rows.map(({ changeVector: _, createdAt: __, ...r }) => r)

describePg('revisions on PostgreSQL, byte for byte as on SQLite', () => {
  let d: PgTestDatabase
  let sql: SQL
  let twin: SqliteTwin
  beforeAll(async () => {
    d = await pgDatabase()
    sql = new SQL(pgClientOptions(d.url, { processName: 'test', poolSize: 2 }))
    await sql`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES (${TEAM}, 'main', '["en"]'::json, 'en', '2026-01-01T00:00:00.0000000Z')`
    twin = sqliteTwin()
    for (const w of writes()) {
      await sql.begin(async (tx) => pg.putRevision(tx, { teamId: TEAM, ...w, changeVector: await pg.nextChangeVector(tx) }))
      await lite.putRevision(twin.db, { teamId: TEAM, ...w, changeVector: await lite.nextChangeVector(twin.db) })
    }
  })
  afterAll(async () => {
    twin?.close()
    await sql?.close()
    await d?.drop()
  })

  test('the stored rows are the same: seq, ordinal, body bytes, summary, stamp', async () => {
    const pgRows = [...(await sql`SELECT seq::float8 AS seq, document_id, ordinal, body, summary, stamped FROM revisions ORDER BY revisions.seq`)]
      .map((r: any) => ({ ...r, body: hex(r.body) }))
    const liteRows = (twin.db.$client.query('SELECT seq, document_id, ordinal, body, summary, stamped FROM revisions ORDER BY seq').all() as any[])
      .map((r) => ({ ...r, body: hex(r.body), stamped: r.stamped === 1 }))
    expect(pgRows.length).toBe(53)
    expect(pgRows).toEqual(liteRows)
    // What the bytes hold: a keyframe at ordinals 1, 17, 33; deltas naming their keyframe's seq between; ordinal 20 whole.
    const kinds = pgRows.filter((r) => r.document_id === 'pages/a').map((r) => (r.body.startsWith('01') ? 'F' : 'D'))
    expect([kinds[0], kinds[16], kinds[32], kinds[19], kinds[1], kinds[17]]).toEqual(['F', 'F', 'F', 'F', 'D', 'D'])
    expect(pgRows.filter((r) => r.body.startsWith('02')).length).toBeGreaterThan(40)
  })

  test('the decoded reads are the same: whole revisions, raw offsets, version entries, counts', async () => {
    for (const doc of ['pages/a', 'pages/b']) {
      const n = await pg.countRevisions(sql, TEAM, doc)
      expect(n).toBe(await lite.countRevisions(twin.db, TEAM, doc))
      expect(withoutStoreFields(await pg.revisionsFrom(sql, TEAM, doc, n, 100))).toEqual(withoutStoreFields(await lite.revisionsFrom(twin.db, TEAM, doc, n, 100)))
      expect(withoutStoreFields(await pg.listRevisions(sql, TEAM, doc, 5, 7))).toEqual(withoutStoreFields(await lite.listRevisions(twin.db, TEAM, doc, 5, 7)))
      expect(withoutStoreFields(await pg.revisionEntriesFrom(sql, TEAM, doc, 30, 25))).toEqual(withoutStoreFields(await lite.revisionEntriesFrom(twin.db, TEAM, doc, 30, 25)))
    }
    const all = await pg.revisionsFrom(sql, TEAM, 'pages/a', 40, 100)
    expect(all.map((r) => r.body)).toEqual(writes().filter((w) => w.documentId === 'pages/a').map((w) => w.body).reverse())
    expect(JSON.stringify(all[0]!.body)).toBe(JSON.stringify(writes().filter((w) => w.documentId === 'pages/a').at(-1)!.body))
    // Ordinal 7's stamp is not two strings: no summary, so its entry is read from its body, as on SQLite.
    expect((await pg.revisionEntriesFrom(sql, TEAM, 'pages/a', 7, 1))[0]).toMatchObject({ ordinal: 7, stamped: true, publishedBy: 42, locales: ['en'] })
    expect(await pg.listRevisions(sql, TEAM, 'pages/a', 40, 10)).toEqual([])
    const by = await pg.revisionByChangeVector(sql, TEAM, all[5]!.changeVector)
    expect(by).toEqual(all[5]!)
    expect(await pg.revisionByChangeVector(sql, TEAM, 'A:0-none')).toBeNull()
    // The 7-digit stamp and the store's own timestamps come back as the text written.
    expect(all[0]!.body.__publishedAt).toBe('2026-03-01T10:40:00.1234560Z')
    expect(all[0]!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  test('encodeRevision gives the stored bytes again', async () => {
    const [row] = await sql`SELECT body FROM revisions WHERE document_id = 'pages/a' AND ordinal = 18`
    const text = JSON.stringify(writes().filter((w) => w.documentId === 'pages/a')[17]!.body)
    expect(hex(await pg.encodeRevision(sql, TEAM, 'pages/a', 18, text))).toBe(hex(row.body))
    expect(hex(await lite.encodeRevision(twin.db.$client, TEAM, 'pages/a', 18, text))).toBe(hex(row.body))
  })

  test('revision_locales: the last stamped ordinal per locale, as on SQLite; last_at the latest time', async () => {
    const pgRows = [...(await sql`SELECT document_id, locale, last_ordinal, last_at FROM revision_locales ORDER BY document_id, locale`)]
    const liteRows = twin.db.$client.query('SELECT document_id, locale, last_ordinal FROM revision_locales ORDER BY document_id, locale').all()
    expect(pgRows.map(({ last_at: _, ...r }: any) => r)).toEqual(liteRows)
    expect(pgRows.map((r: any) => [r.document_id, r.locale, r.last_ordinal])).toEqual([
      ['pages/a', 'de', 39], ['pages/a', 'en', 39], ['pages/a', 'fr-CA', 26], ['pages/b', 'en', 13],
    ])
    const [latest] = await sql`SELECT max(created_at) AS at FROM revisions WHERE document_id = 'pages/a' AND ordinal <= 39 AND stamped`
    expect(pgRows[0].last_at).toBe(latest.at)
  })

  test('a version page seeks the dense ordinal: index read backwards, no sort, a deep page reads what the first does', async () => {
    await sql`INSERT INTO revisions (team_id, document_id, ordinal, change_vector, body, summary, stamped, created_at)
      SELECT ${TEAM}, 'doc' || (n % 10), n / 10 + 1, 'A:' || (n + 1000000) || '-x', '\\x01'::bytea, '["t","u",[]]', true, '2026-01-01T00:00:00.000Z'
      FROM generate_series(0, 49999) n`
    await sql`ANALYZE revisions`
    for (const page of [pg.ENTRIES_PAGE, pg.REVISIONS_PAGE]) {
      const run = async (from: number) => {
        const [row] = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${page}`, [TEAM, 'doc3', from, 20])
        const nodes: any[] = []
        const walk = (n: any) => (nodes.push(n), (n.Plans ?? []).forEach(walk))
        walk(row['QUERY PLAN'][0].Plan)
        const scan = nodes.find((n) => n['Index Name'])
        return { types: nodes.map((n) => n['Node Type']), index: scan?.['Index Name'], direction: scan?.['Scan Direction'], rows: scan?.['Actual Rows'], buffers: nodes[0]['Shared Hit Blocks'] + nodes[0]['Shared Read Blocks'] }
      }
      await run(5000) // warm the cache
      const first = await run(5000)
      const deep = await run(40)
      expect(first).toEqual({ types: ['Limit', 'Index Scan'], index: 'revisions_doc_ordinal', direction: 'Backward', rows: 20, buffers: first.buffers })
      expect({ ...deep, buffers: 0 }).toEqual({ ...first, buffers: 0 })
      expect(deep.buffers).toBeLessThanOrEqual(first.buffers + 1)
    }
    expect((await pg.revisionEntriesFrom(sql, TEAM, 'doc3', 40, 20)).map((e) => e.ordinal)).toEqual(Array.from({ length: 20 }, (_, i) => 40 - i))
  }, 60_000)
})
