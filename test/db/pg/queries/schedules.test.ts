/**
 * The PostgreSQL twins of db/queries/{schedules,snapshots}.ts against the SQLite ones, every answer
 * and table compared; then the row lock that keeps a due schedule to one publisher on PostgreSQL.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { describePg } from '../../../pg/harness'
import { queriesTwin, same, sameTable, type QueriesTwin } from './twin'
import * as liteSchedules from '../../../../db/queries/schedules'
import * as liteSnapshots from '../../../../db/queries/snapshots'
import * as pgSchedules from '../../../../db/pg/queries/schedules'
import * as pgSnapshots from '../../../../db/pg/queries/snapshots'

const SCHEDULES = 'SELECT team_id, document_id, publish_at, scheduled_by, lease_token, lease_expires_at FROM schedules ORDER BY team_id, document_id'
const SNAPSHOTS = 'SELECT team_id, id, document_id, name, created_by, created_at, expires_at, revoked_at FROM snapshots ORDER BY team_id, id'

describePg('query twins: schedules and snapshots on PostgreSQL answer as on SQLite', () => {
  let t: QueriesTwin
  beforeAll(async () => {
    t = await queriesTwin()
  })
  afterAll(async () => {
    await t?.close()
  })

  test('schedules: upsert, read, due lists (ties included), hold back, remove, delete', async () => {
    const rows = [
      { teamId: 'acme', documentId: 'd1', publishAt: 2_000, scheduledBy: 'u1', leaseToken: null, leaseExpiresAt: null },
      { teamId: 'acme', documentId: 'd2', publishAt: 1_000, scheduledBy: 'u1', leaseToken: null, leaseExpiresAt: null },
      { teamId: 'acme', documentId: 'd3', publishAt: 2_000, scheduledBy: 'u2', leaseToken: null, leaseExpiresAt: 5_000 },
      { teamId: 'acme', documentId: 'd4', publishAt: 1_700_000_000_000, scheduledBy: 'u2', leaseToken: null, leaseExpiresAt: null },
      { teamId: 'acme', documentId: 'd1', publishAt: 1_500, scheduledBy: 'u3', leaseToken: null, leaseExpiresAt: null }, // replaces d1's
      { teamId: 'acme', documentId: 'd5', publishAt: 2_000, scheduledBy: 'u1', leaseToken: null, leaseExpiresAt: null },
    ]
    for (const row of rows) {
      await same(['upsertSchedule', row], pgSchedules.upsertSchedule(t.sql, row), liteSchedules.upsertSchedule(t.db, row))
      await sameTable(t, SCHEDULES)
    }
    for (const id of ['d1', 'd4', 'nope']) {
      await same(['getSchedule', id], pgSchedules.getSchedule(t.sql, 'acme', id), liteSchedules.getSchedule(t.db, 'acme', id))
      await same(['hasSchedule', id], pgSchedules.hasSchedule(t.sql, 'acme', id), liteSchedules.hasSchedule(t.db, 'acme', id))
    }
    // d3 and d5 are due at the same time: the ids are in insertion order, so both tie-breakers agree.
    for (const now of [999, 1_000, 2_000, 5_000, 5_001, 2_000_000_000_000]) {
      await same(['dueSchedules', now], pgSchedules.dueSchedules(t.sql, now), liteSchedules.dueSchedules(t.db, now))
      for (const id of ['d1', 'd3', 'nope']) {
        await same(['dueScheduleOf', id, now], t.sql.begin((tx) => pgSchedules.dueScheduleOf(tx, 'acme', id, now)),
          t.db.transaction((tx) => liteSchedules.dueScheduleOf(tx, 'acme', id, now)))
      }
    }
    expect((await pgSchedules.dueSchedules(t.sql, 5_001)).map((s) => s.documentId)).toEqual(['d2', 'd1', 'd3', 'd5'])
    for (const [s, until] of [[{ teamId: 'acme', documentId: 'd2', publishAt: 1_000 }, 9_000], [{ teamId: 'acme', documentId: 'd1', publishAt: 2_000 }, 9_000]] as const) {
      await same(['holdBackSchedule', s], pgSchedules.holdBackSchedule(t.sql, s, until), liteSchedules.holdBackSchedule(t.db, s, until))
      await sameTable(t, SCHEDULES)
    }
    await same('removeSchedule', pgSchedules.removeSchedule(t.sql, 'acme', 'd5'), liteSchedules.removeSchedule(t.db, 'acme', 'd5'))
    for (const id of ['d3', 'd3', 'nope']) await same(['deleteSchedule', id], pgSchedules.deleteSchedule(t.sql, 'acme', id), liteSchedules.deleteSchedule(t.db, 'acme', id))
    await sameTable(t, SCHEDULES)
    expect((await t.sql`SELECT document_id FROM schedules ORDER BY document_id`).map((r: any) => r.document_id)).toEqual(['d1', 'd2', 'd4'])
  })

  test('a due schedule read FOR UPDATE: of two dispatchers reading it at once, one publishes, the other finds it gone', async () => {
    const s = { teamId: 'acme', documentId: 'race', publishAt: 10, scheduledBy: 'u1', leaseToken: null, leaseExpiresAt: null }
    for (let round = 0; round < 5; round++) {
      await pgSchedules.upsertSchedule(t.sql, s)
      let firstHolds!: () => void
      const held = new Promise<void>((resolve) => (firstHolds = resolve))
      const first = t.sql.begin(async (tx) => {
        const found = await pgSchedules.dueScheduleOf(tx, 'acme', 'race', 100)
        firstHolds()
        await Bun.sleep(50) // the publish
        await pgSchedules.removeSchedule(tx, 'acme', 'race')
        return found?.documentId ?? null
      })
      await held
      const second = t.sql.begin(async (tx) => {
        const found = await pgSchedules.dueScheduleOf(tx, 'acme', 'race', 100)
        if (found) await pgSchedules.removeSchedule(tx, 'acme', 'race')
        return found?.documentId ?? null
      })
      expect(await Promise.all([first, second])).toEqual(['race', null])
    }
  })

  test('snapshots: insert, read, rename and revoke (a key left out kept), a document\'s list newest first', async () => {
    const rows = [
      { teamId: 'acme', id: 'd1/snapshot/a', documentId: 'd1', name: null, createdBy: 'u1', createdAt: '2026-01-02T00:00:00.000Z', expiresAt: null, revokedAt: null },
      { teamId: 'acme', id: 'd1/snapshot/b', documentId: 'd1', name: 'B', createdBy: 'u1', createdAt: '2026-01-03T00:00:00.000Z', expiresAt: '2026-02-01T00:00:00.000Z', revokedAt: null },
      { teamId: 'acme', id: 'd1/snapshot/c', documentId: 'd1', name: 'C', createdBy: 'u2', createdAt: '2026-01-03T00:00:00.000Z', expiresAt: null, revokedAt: null },
      { teamId: 'acme', id: 'd2/snapshot/a', documentId: 'd2', name: null, createdBy: 'u1', createdAt: '2026-01-01T00:00:00.000Z', expiresAt: null, revokedAt: null },
    ]
    for (const row of rows) await same(['insertSnapshot', row.id], pgSnapshots.insertSnapshot(t.sql, row), liteSnapshots.insertSnapshot(t.db, row))
    await sameTable(t, SNAPSHOTS)
    const sets = [
      ['d1/snapshot/a', { name: 'A' }], ['d1/snapshot/b', { revokedAt: '2026-01-04T00:00:00.000Z' }], ['d1/snapshot/b', { name: null }],
      ['d1/snapshot/c', { name: 'C2', revokedAt: '2026-01-05T00:00:00.000Z' }], ['nope', { name: 'x' }],
    ] as const
    for (const [id, set] of sets) {
      await same(['updateSnapshot', id, set], pgSnapshots.updateSnapshot(t.sql, { teamId: 'acme', id }, set), liteSnapshots.updateSnapshot(t.db, { teamId: 'acme', id }, set))
      await sameTable(t, SNAPSHOTS)
    }
    for (const id of ['d1/snapshot/b', 'nope']) await same(['getSnapshot', id], pgSnapshots.getSnapshot(t.sql, 'acme', id), liteSnapshots.getSnapshot(t.db, 'acme', id))
    // b and c tie on created_at; c, inserted later, has the greater id: both orders put it first.
    for (const doc of ['d1', 'd2', 'd3']) await same(['snapshotsOf', doc], pgSnapshots.snapshotsOf(t.sql, 'acme', doc), liteSnapshots.snapshotsOf(t.db, 'acme', doc))
    expect((await pgSnapshots.snapshotsOf(t.sql, 'acme', 'd1')).map((s) => s.id)).toEqual(['d1/snapshot/c', 'd1/snapshot/b', 'd1/snapshot/a'])
  })
})
