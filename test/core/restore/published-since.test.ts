/**
 * Rule 1's "locales published since" read from `revision_locales` (core/restore/published-since.ts)
 * answers what reading every later version's body answered, for every version and every time,
 * whether the rows were written by publish or filled by migration 0008; and its plan is one seek
 * that reads no revision body.
 */
import { sqliteOnly } from '../../dialect'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { openDb, type Db } from '../../../db/client'
import * as schema from '../../../db/schema'
import { revisionsFrom } from '../../../db/store'
import { localesPublishedSince, type Taken } from '../../../core/restore/published-since'
import { SINCE_ORDINAL_SQL, SINCE_TIME_SQL } from '../../../db/queries/documents'
import { createTestContext, makeTestDir, TEAM, type TestContext } from '../../helpers'
import { ok, publish, put } from './fixtures'
import { rows as select } from '../../rows'

/** The read it replaces: the locales of every later stamped version's body. */
async function oracle(db: Db, documentId: string, taken: Taken): Promise<string[]> {
  const later = (await revisionsFrom(db, TEAM, documentId, Number.MAX_SAFE_INTEGER, 1e6))
    .filter((r) => r.stamped && ('ordinal' in taken ? r.ordinal > taken.ordinal : r.createdAt > taken.at))
  return [...new Set(later.flatMap((r) => Object.keys((r.body.locales ?? {}) as object)))].sort()
}

/** Every ordinal, and the time of every version and a moment before the first. */
async function takens(db: Db, documentId: string): Promise<Taken[]> {
  const rows = await select<{ ordinal: number; created_at: string }>(db, 'SELECT ordinal, created_at FROM revisions WHERE team_id = ? AND document_id = ? ORDER BY ordinal', TEAM, documentId)
  return [{ ordinal: 0 }, { at: '2000-01-01T00:00:00.000Z' }, ...rows.flatMap((r) => [{ ordinal: r.ordinal }, { at: r.created_at }])]
}

const LOCALE_SETS = [['en'], ['en', 'de'], ['de'], ['en', 'fr'], ['en'], ['fr'], ['en', 'de', 'fr'], ['en']]

describe('written by publish', () => {
  let ctx: TestContext
  beforeAll(async () => {
    ctx = await createTestContext()
    for (const [i, set] of LOCALE_SETS.entries()) {
      await put(ctx, { id: 'pages/loc', contentType: 'page', fields: {}, locales: Object.fromEntries(set.map((l) => [l, { title: `${l} ${i}`, slug: l }])) })
      await publish(ctx, 'pages/loc')
    }
    // A publish of one locale only: the version carries the live others too.
    await put(ctx, { id: 'pages/loc/draft', contentType: 'page', fields: {}, locales: { de: { title: 'de only', slug: 'de' } } })
    await ok(ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/loc'], locales: ['de'] } }))
  })
  afterAll(() => ctx.close())

  test('every version and time: the same locales as reading every later body', async () => {
    const all = await takens(ctx.db, 'pages/loc')
    expect(all.length).toBe(2 + 2 * (LOCALE_SETS.length + 1))
    for (const taken of all) {
      expect({ taken, locales: (await localesPublishedSince(ctx.db, TEAM, 'pages/loc', taken)).sort() }).toEqual({ taken, locales: await oracle(ctx.db, 'pages/loc', taken) })
    }
  })
})

sqliteOnly('a SQLite migration on a SQLite file, the same on both passes').test('migration 0008 fills revision_locales for the versions a database already holds', async () => {
  const dir = makeTestDir('since-migrate-')
  try {
    const old = join(dir, 'migrations')
    cpSync(join(import.meta.dir, '../../../db/migrations'), old, { recursive: true })
    const journal = JSON.parse(readFileSync(join(old, 'meta/_journal.json'), 'utf8'))
    journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < '0008')
    writeFileSync(join(old, 'meta/_journal.json'), JSON.stringify(journal))
    const path = join(dir, 'upgrade.db')
    const before = drizzle({ client: new Database(path, { create: true, strict: true }), schema })
    migrate(before, { migrationsFolder: old })
    const c = before.$client
    c.query(`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES (?, 'main', '["en","de","fr"]', 'en', 'x')`).run(TEAM)
    const insert = c.query(`INSERT INTO revisions (team_id, document_id, ordinal, change_vector, body, stamped, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
    LOCALE_SETS.forEach((set, i) => {
      const body = { id: 'pages/old', contentType: 'page', fields: {}, locales: Object.fromEntries(set.map((l) => [l, { title: l }])) }
      // Times not in ordinal order (a clock that stepped back), and one unstamped revision.
      insert.run(TEAM, 'pages/old', i + 1, `A:${i + 1}-node`, JSON.stringify(body), i === 5 ? 0 : 1, `2026-01-0${(i * 5) % 9 + 1}T00:00:00.000Z`)
    })
    c.close()

    const db = openDb(path)
    try {
      expect(db.$client.query('SELECT count(*) AS n FROM revision_locales').get()).toEqual({ n: 3 })
      for (const taken of await takens(db, 'pages/old')) {
        expect({ taken, locales: (await localesPublishedSince(db, TEAM, 'pages/old', taken)).sort() }).toEqual({ taken, locales: await oracle(db, 'pages/old', taken) })
      }
    } finally {
      db.$client.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

sqliteOnly('SQLite\'s EXPLAIN QUERY PLAN, the same on both passes').test('the plan is one seek into revision_locales: no revision row, no body, no sort', () => {
  const dir = makeTestDir('since-plan-')
  const db = openDb(join(dir, 'plan.db'))
  try {
    for (const sql of [SINCE_ORDINAL_SQL, SINCE_TIME_SQL]) {
      const details = (db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all(TEAM, 'pages/a', 1) as { detail: string }[]).map((r) => r.detail)
      // Not `SEARCH r USING INDEX revisions_doc_ordinal (...)` + `SCAN l` (json_each) + a temp B-tree for DISTINCT,
      // which reads the body of every later version.
      expect(details).toEqual([expect.stringMatching(/^SEARCH revision_locales USING INDEX sqlite_autoindex_revision_locales_1 \(team_id=\? AND document_id=\?\)$/)])
    }
  } finally {
    db.$client.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
