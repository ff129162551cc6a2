/**
 * The PostgreSQL twins of db/queries/{teams,users,metrics}.ts (db/pg/queries/) against the SQLite
 * ones: the same rows and calls on a fresh SQLite file and a fresh PostgreSQL database, every
 * answer and the tables after each write compared.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { describePg } from '../../../pg/harness'
import { queriesTwin, same, sameTable, tables, type QueriesTwin } from './twin'
import * as liteTeams from '../../../../db/queries/teams'
import * as liteUsers from '../../../../db/queries/users'
import * as liteMetrics from '../../../../db/queries/metrics'
import * as pgTeams from '../../../../db/pg/queries/teams'
import * as pgUsers from '../../../../db/pg/queries/users'
import * as pgMetrics from '../../../../db/pg/queries/metrics'
import { nextChangeVector as pgNextChangeVector } from '../../../../db/pg/store'
import type { TeamRow } from '../../../../db/schema'

const TEAMS = 'SELECT id, workspace_id, locales, default_locale, fallbacks, content_index, index_generation, indexed_generation, features, created_at FROM teams ORDER BY id'
const TYPES = 'SELECT team_id, name, collection, urls, definition FROM content_types ORDER BY team_id, name'

describePg('query twins: teams, users, metrics on PostgreSQL answer as on SQLite', () => {
  let t: QueriesTwin
  beforeAll(async () => {
    t = await queriesTwin()
  })
  afterAll(async () => {
    await t?.close()
  })

  test('teams: any, one, its default locale; content types in byte order, replaced by an upsert', async () => {
    await same('hasAnyTeam', pgTeams.hasAnyTeam(t.sql), liteTeams.hasAnyTeam(t.db))
    await t.sql`INSERT INTO teams (id, workspace_id, locales, default_locale, fallbacks, content_index, features, created_at)
      VALUES ('beta', 'w2', '["fr","de"]'::json, 'fr', '{"de":"fr"}'::json, '{"b":1,"a":2}'::json, '{"history":false,"snapshots":true}'::json, '2026-02-01T00:00:00.0000000Z')`
    t.c.query(`INSERT INTO teams (id, workspace_id, locales, default_locale, fallbacks, content_index, features, created_at)
      VALUES ('beta', 'w2', '["fr","de"]', 'fr', '{"de":"fr"}', '{"b":1,"a":2}', '{"history":false,"snapshots":true}', '2026-02-01T00:00:00.0000000Z')`).run()
    for (const id of ['acme', 'beta', 'nope']) {
      await same(['getTeam', id], pgTeams.getTeam(t.sql, id), liteTeams.getTeam(t.db, id))
      await same(['teamDefaultLocale', id], pgTeams.teamDefaultLocale(t.sql, id), liteTeams.teamDefaultLocale(t.db, id))
    }
    expect(Object.keys((await pgTeams.getTeam(t.sql, 'beta'))!.contentIndex as object)).toEqual(['b', 'a'])
    const types = [
      { teamId: 'acme', name: 'page', collection: 'pages', urls: true, definition: { z: 1, fields: [{ name: 'title' }] } },
      { teamId: 'acme', name: 'Post', collection: 'posts', urls: false, definition: {} },
      { teamId: 'acme', name: '_x', collection: 'x', urls: false, definition: { a: [1, 2] } },
      { teamId: 'beta', name: 'page', collection: 'pages', urls: true, definition: {} },
      { teamId: 'acme', name: 'page', collection: 'pages2', urls: false, definition: { y: null } },
    ]
    for (const row of types) {
      await same(['upsertContentType', row], pgTeams.upsertContentType(t.sql, row), liteTeams.upsertContentType(t.db, row))
      await sameTable(t, TYPES)
    }
    for (const [team, name] of [['acme', 'page'], ['acme', 'Post'], ['acme', 'post'], ['beta', 'page'], ['nope', 'page']]) {
      await same(['getContentType', team, name], pgTeams.getContentType(t.sql, team!, name!), liteTeams.getContentType(t.db, team!, name!))
    }
    const listed = await same('listContentTypes', pgTeams.listContentTypes(t.sql, 'acme'), liteTeams.listContentTypes(t.db, 'acme'))
    expect(listed.map((r) => r.name)).toEqual(['Post', '_x', 'page']) // bytes: 'P' < '_' < 'p'
  })

  test('team settings, content index generations and features, each write read back the same', async () => {
    const settings: Partial<Pick<TeamRow, 'locales' | 'defaultLocale' | 'fallbacks'>>[] = [{ locales: ['en', 'fr'] }, { defaultLocale: 'fr' }, { fallbacks: { fr: 'en' } }, { locales: ['de'], defaultLocale: 'de', fallbacks: {} }] // {} throws on SQLite (drizzle: no values to set)
    for (const next of settings) {
      await same(['updateTeamSettings', next], t.sql.begin((tx) => pgTeams.updateTeamSettings(tx, 'acme', next)), t.db.transaction((tx) => liteTeams.updateTeamSettings(tx, 'acme', next)))
      await same('getTeam', pgTeams.getTeam(t.sql, 'acme'), liteTeams.getTeam(t.db, 'acme'))
    }
    for (const [team, definition] of [['acme', { fields: ['title'], b: 1 }], ['acme', ['x']], ['nope', {}], ['beta', 'text'], ['acme', null]] as const) {
      await same(['storeContentIndex', team, definition], t.sql.begin((tx) => pgTeams.storeContentIndex(tx, team, definition)),
        t.db.transaction((tx) => liteTeams.storeContentIndex(tx, team, definition)))
      await sameTable(t, TEAMS)
    }
    expect((await pgTeams.getTeam(t.sql, 'acme'))!.indexGeneration).toBe(3)
    for (const [team, value] of [['acme', { history: false, snapshots: false }], ['beta', { snapshots: true, history: true }], ['nope', { history: true, snapshots: true }]] as const) {
      await same(['updateTeamFeatures', team], pgTeams.updateTeamFeatures(t.sql, team, value), liteTeams.updateTeamFeatures(t.db, team, value))
      await sameTable(t, TEAMS)
    }
  })

  test('moving a content type: every non-activity document of the type, a new change vector each, in the same order', async () => {
    const docs: [string, string, string, string][] = [ // id, kind, collection, content type
      ['p2', 'canonical', 'pages', 'page'], ['p1', 'canonical', 'pages', 'page'], ['p1/draft', 'draft', 'pages', 'page'],
      ['p1/activity', 'activity', '@activity', 'page'], ['q1', 'canonical', 'posts', 'Post'], ['a0', 'canonical', 'pages', 'page'],
    ]
    for (const [i, [id, kind, collection, type]] of docs.entries()) {
      const cv = `A:${i + 1}-n`
      const body = JSON.stringify({ contentType: type, locales: {} })
      await t.sql`INSERT INTO documents (team_id, id, canonical_id, kind, collection, body, change_vector, updated_at)
        VALUES ('acme', ${id}, ${id.split('/')[0]}, ${kind}, ${collection}, ${body}::text::json, ${cv}, 'then')`
      t.c.query(`INSERT INTO documents (team_id, id, canonical_id, kind, collection, body, change_vector, updated_at) VALUES ('acme', ?, ?, ?, ?, ?, ?, 'then')`)
        .run(id, id.split('/')[0]!, kind, collection, body, cv)
    }
    for (const [name, collection] of [['page', 'site'], ['Post', 'blog'], ['none', 'x']]) {
      await same(['moveContentTypeDocuments', name], t.sql.begin((tx) => pgTeams.moveContentTypeDocuments(tx, 'acme', name!, collection!)),
        t.db.transaction((tx) => liteTeams.moveContentTypeDocuments(tx, 'acme', name!, collection!)))
    }
    // The node ids differ (one per database); the etags come from the same counter in the same order.
    const etags = (rows: Record<string, unknown>[]) => rows.map((r) => [r.id, r.collection, String(r.change_vector).split('-')[0]])
    const { pg, lite } = await tables(t, 'SELECT id, collection, change_vector FROM documents ORDER BY id')
    expect(etags(pg)).toEqual(etags(lite))
    expect(etags(pg)).toEqual([
      ['a0', 'site', 'A:1'], ['p1', 'site', 'A:2'], ['p1/activity', '@activity', 'A:4'], ['p1/draft', 'site', 'A:3'], ['p2', 'site', 'A:4'], ['q1', 'blog', 'A:5'],
    ])
  })

  test('a move while a writer holds the change vector counter, on PostgreSQL: the move waits for it, no deadlock', async () => {
    let bumped!: () => void
    const ready = new Promise<void>((resolve) => (bumped = resolve))
    const writer = t.sql.begin(async (tx) => {
      const cv = await pgNextChangeVector(tx)
      bumped()
      await Bun.sleep(100) // the move starts meanwhile
      await tx`UPDATE documents SET change_vector = ${cv} WHERE team_id = 'acme' AND id = 'p1'`
      return cv
    })
    await ready
    const move = t.sql.begin((tx) => pgTeams.moveContentTypeDocuments(tx, 'acme', 'page', 'moved'))
    const [written] = await Promise.all([writer, move])
    const rows = [...(await t.sql`SELECT id, collection, change_vector FROM documents WHERE kind <> 'activity' AND body ->> 'contentType' = 'page' ORDER BY id`)]
    const etag = (cv: string) => Number(cv.slice(2).split('-')[0])
    expect(rows.map((r: any) => [r.id, r.collection])).toEqual([['a0', 'moved'], ['p1', 'moved'], ['p1/draft', 'moved'], ['p2', 'moved']])
    // Every moved row's change vector is newer than the writer's: the move took the counter after it.
    for (const r of rows) expect(etag(r.change_vector)).toBeGreaterThan(etag(written))
  })

  test('users and memberships: token hashes both ways, one membership, all of a user by team id', async () => {
    for (const [id, hash] of [['u1', 'h1'], ['u2', 'h2']]) {
      await t.sql`INSERT INTO users (id, token_hash) VALUES (${id}, ${hash})`
      t.c.query('INSERT INTO users (id, token_hash) VALUES (?, ?)').run(id, hash)
    }
    for (const [team, user, caps] of [['beta', 'u1', '["publish","read"]'], ['acme', 'u1', '["read"]'], ['acme', 'u2', '[]']]) {
      await t.sql`INSERT INTO memberships (team_id, user_id, capabilities) VALUES (${team}, ${user}, ${caps}::text::json)`
      t.c.query('INSERT INTO memberships (team_id, user_id, capabilities) VALUES (?, ?, ?)').run(team!, user!, caps!)
    }
    for (const user of ['u1', 'u2', 'u3']) {
      await same(['userTokenHash', user], pgUsers.userTokenHash(t.sql, user), liteUsers.userTokenHash(t.db, user))
      await same(['membershipsOf', user], pgTeams.membershipsOf(t.sql, user), liteTeams.membershipsOf(t.db, user))
      for (const team of ['acme', 'beta']) await same(['membershipOf', team, user], pgUsers.membershipOf(t.sql, team, user), liteUsers.membershipOf(t.db, team, user))
    }
    for (const hash of ['h1', 'h2', 'h3']) await same(['userByTokenHash', hash], pgUsers.userByTokenHash(t.sql, hash), liteUsers.userByTokenHash(t.db, hash))
    expect((await pgTeams.membershipsOf(t.sql, 'u1')).map((m) => m.teamId)).toEqual(['acme', 'beta'])
  })

  test('metric counters: increments inside and outside transactions, counts by outcome', async () => {
    const calls: [string, string][] = [['sent', 'ok'], ['sent', 'fail'], ['sent', 'ok'], ['sched', 'ok'], ['sent', 'Zz'], ['sent', 'ok']]
    for (const [name, outcome] of calls) await same(['incrementCounter', name, outcome], pgMetrics.incrementCounter(t.sql, name, outcome), liteMetrics.incrementCounter(t.db, name, outcome))
    await same('in a transaction', t.sql.begin((tx) => pgMetrics.incrementCounter(tx, 'sent', 'fail')), t.db.transaction((tx) => liteMetrics.incrementCounter(tx, 'sent', 'fail')))
    for (const name of ['sent', 'sched', 'none']) await same(['countersOf', name], pgMetrics.countersOf(t.sql, name), liteMetrics.countersOf(t.db, name))
    expect(await pgMetrics.countersOf(t.sql, 'sent')).toEqual([{ outcome: 'Zz', value: 1 }, { outcome: 'fail', value: 2 }, { outcome: 'ok', value: 3 }])
  })
})
