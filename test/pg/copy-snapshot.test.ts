/**
 * A copy taken while the api writes (docs/postgresql.md "Copying a SQLite database") holds one
 * moment of the source: publishes land between the copy's batches (one row per INSERT here, so
 * there are hundreds of such gaps), yet every copied canonical carries the change vector of its
 * newest copied revision (publish writes both in one transaction), and none of the publishes
 * made during the copy is in it. Needs TEST_DATABASE_URL.
 */
import { sqliteOf } from '../dialect'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import * as sqliteSchema from '../../db/schema'
import * as pgSchema from '../../db/pg/schema'
import { planCopy } from '../../db/copy/plan'
import { copyToPostgres } from '../../db/copy/copy'
import { createTestContext, TEAM, type TestContext } from '../helpers'
import { describePg, pgDatabase, type PgTestDatabase } from './harness'

const DOCS = 10
const page = (n: number, title: string) => ({ id: `pages/x${n}`, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title, slug: `x${n}` } } })

describePg('a copy while the api writes', () => {
  let ctx: TestContext
  let target: PgTestDatabase
  let pg: SQL

  beforeAll(async () => {
    ctx = await createTestContext()
    for (let n = 0; n < DOCS; n++) {
      expect((await ctx.call('POST', `/content/${TEAM}`, { body: page(n, 'first') })).status).toBe(200)
      expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [`pages/x${n}`] } })).body[0].status).toBe(0)
    }
    target = await pgDatabase()
    pg = new SQL({ url: target.url, max: 1 })
  })
  afterAll(async () => {
    await pg?.close()
    await target?.drop()
    ctx?.close()
  })

  test('publishes during the copy: each copied canonical matches its newest copied revision; none of them is copied', async () => {
    const revisionsBefore = sqliteOf(ctx.db).$client.query<{ n: number }, []>('SELECT count(*) AS n FROM revisions').get()!.n
    let copying = true
    let during = 0
    // The api's writes, through its routes, on its own connection, between the copy's awaits.
    const writer = (async () => {
      for (let i = 0; copying; i++) {
        const n = i % DOCS
        await ctx.call('POST', `/content/${TEAM}`, { body: page(n, `edit ${i}`) })
        const [item] = (await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [`pages/x${n}`] } })).body
        expect(item.status).toBe(0)
        during++
        await Bun.sleep(0)
      }
    })()
    const source = new Database(ctx.path, { readonly: true, safeIntegers: true })
    try {
      await copyToPostgres(source, pg, planCopy(source, sqliteSchema, pgSchema), { batchRows: 1 })
    } finally {
      copying = false
      await writer
      source.close()
    }
    expect(during).toBeGreaterThan(20)
    const torn = await pg.unsafe(`
      SELECT d.id, d.change_vector, r.change_vector AS revision_cv FROM documents d
      JOIN revisions r ON r.team_id = d.team_id AND r.document_id = d.id
        AND r.ordinal = (SELECT max(ordinal) FROM revisions WHERE team_id = d.team_id AND document_id = d.id)
      WHERE d.kind = 'canonical' AND d.change_vector <> r.change_vector`)
    expect(torn).toEqual([])
    const [{ copied }] = await pg.unsafe("SELECT count(*)::int AS copied FROM revisions WHERE team_id = 'acme'")
    // The snapshot was taken when the copy began: at most the publish under way then is in it.
    expect(copied).toBeGreaterThanOrEqual(revisionsBefore)
    expect(copied).toBeLessThanOrEqual(revisionsBefore + 1)
    const [{ orphans }] = await pg.unsafe('SELECT count(*)::int AS orphans FROM outbox o WHERE NOT EXISTS (SELECT 1 FROM outbox_events e WHERE e.event_id = o.event_id)')
    expect(orphans).toBe(0)
  })
})
