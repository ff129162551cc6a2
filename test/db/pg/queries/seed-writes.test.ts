/**
 * The seed's writes (cli/seed.ts) as named operations: teams created and their workspace set,
 * users and memberships upserted, the team ids listed, on a fresh SQLite file and a fresh
 * PostgreSQL database with the same calls, every answer and table compared after each write.
 * And the seed lock: on PostgreSQL a second transaction waits for the first's to end.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { describePg } from '../../../pg/harness'
import { queriesTwin, same, sameTable, type QueriesTwin } from './twin'
import * as liteTeams from '../../../../db/queries/teams'
import * as liteUsers from '../../../../db/queries/users'
import * as pgTeams from '../../../../db/pg/queries/teams'
import * as pgUsers from '../../../../db/pg/queries/users'

const TEAMS = 'SELECT id, workspace_id, locales, default_locale, fallbacks, content_index, index_generation, indexed_generation, features, created_at FROM teams ORDER BY id'
const USERS = 'SELECT id, token_hash FROM users ORDER BY id'
const MEMBERS = 'SELECT team_id, user_id, capabilities FROM memberships ORDER BY team_id, user_id'

describePg('query twins: the seed\'s writes on PostgreSQL as on SQLite', () => {
  let t: QueriesTwin
  beforeAll(async () => {
    t = await queriesTwin()
  })
  afterAll(async () => {
    await t?.close()
  })

  test('teams: created with their defaults, the workspace set, the ids in byte order', async () => {
    const created = [
      { id: 'beta', workspaceId: 'w2', locales: ['fr', 'de'], defaultLocale: 'fr', createdAt: '2026-02-01T00:00:00.000Z' },
      { id: 'Zed', workspaceId: 'w3', locales: ['en'], defaultLocale: 'en', createdAt: '2026-02-02T00:00:00.000Z' },
      { id: '_x', workspaceId: 'w4', locales: ['en-GB', 'en'], defaultLocale: 'en-GB', createdAt: '2026-02-03T00:00:00.000Z' },
    ]
    for (const row of created) {
      await same(['insertTeam', row.id], t.sql.begin((tx) => pgTeams.insertTeam(tx, row)), t.db.transaction((tx) => liteTeams.insertTeam(tx, row)))
      await sameTable(t, TEAMS)
    }
    for (const [id, workspace] of [['beta', 'w9'], ['acme', 'main2'], ['nope', 'w0']] as const) {
      await same(['setTeamWorkspace', id], t.sql.begin((tx) => pgTeams.setTeamWorkspace(tx, id, workspace)), t.db.transaction((tx) => liteTeams.setTeamWorkspace(tx, id, workspace)))
      await sameTable(t, TEAMS)
    }
    expect(await same('teamIds', pgTeams.teamIds(t.sql), liteTeams.teamIds(t.db))).toEqual(['Zed', '_x', 'acme', 'beta']) // bytes: 'Z' < '_' < 'a'
    // A team named twice is refused on both (the seed updates an existing team instead).
    await expect(pgTeams.insertTeam(t.sql, created[0]!)).rejects.toThrow()
    await expect(liteTeams.insertTeam(t.db, created[0]!)).rejects.toThrow()
    await sameTable(t, TEAMS)
  })

  test('users and memberships: created, then their token hash and capabilities replaced', async () => {
    const writes: [string, string, string[], string][] = [ // user, token hash, capabilities, team
      ['u1', 'h1', ['EditContent'], 'acme'], ['u2', 'h2', [], 'acme'], ['u1', 'h1b', ['EditContent', 'ManageTeam'], 'acme'],
      ['u1', 'h1b', ['ChangeLiveContent'], 'beta'], ['u2', 'h2b', ['ManageWebhooks'], 'acme'],
    ]
    for (const [userId, hash, capabilities, teamId] of writes) {
      await same(['upsertUser', userId, hash], t.sql.begin((tx) => pgUsers.upsertUser(tx, userId, hash)), t.db.transaction((tx) => liteUsers.upsertUser(tx, userId, hash)))
      await sameTable(t, USERS)
      const m = { teamId, userId, capabilities }
      await same(['upsertMembership', m], t.sql.begin((tx) => pgUsers.upsertMembership(tx, m)), t.db.transaction((tx) => liteUsers.upsertMembership(tx, m)))
      await sameTable(t, MEMBERS)
    }
    await same('userTokenHash', pgUsers.userTokenHash(t.sql, 'u2'), liteUsers.userTokenHash(t.db, 'u2'))
    expect(await same('membershipsOf', pgTeams.membershipsOf(t.sql, 'u1'), liteTeams.membershipsOf(t.db, 'u1')))
      .toEqual([{ teamId: 'acme', capabilities: ['EditContent', 'ManageTeam'] }, { teamId: 'beta', capabilities: ['ChangeLiveContent'] }])
    // A membership of an unknown team or user is refused on both (foreign keys).
    const orphan = { teamId: 'nope', userId: 'u1', capabilities: [] }
    await expect(pgUsers.upsertMembership(t.sql, orphan)).rejects.toThrow()
    await expect(liteUsers.upsertMembership(t.db, orphan)).rejects.toThrow()
    await sameTable(t, MEMBERS)
  })

  test('holdSeedLock: on PostgreSQL a second transaction waits until the first one ends', async () => {
    const order: string[] = []
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const first = t.sql.begin(async (tx) => {
      await pgTeams.holdSeedLock(tx)
      order.push('first holds')
      await held
      order.push('first ends')
    })
    while (!order.includes('first holds')) await Bun.sleep(5)
    const second = t.sql.begin(async (tx) => {
      await pgTeams.holdSeedLock(tx)
      order.push('second holds')
    })
    await Bun.sleep(300)
    expect(order).toEqual(['first holds'])
    release()
    await Promise.all([first, second])
    expect(order).toEqual(['first holds', 'first ends', 'second holds'])
    // Given back at the end of its transaction: taken again at once.
    await t.sql.begin((tx) => pgTeams.holdSeedLock(tx))
  })
})
