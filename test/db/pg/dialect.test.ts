/**
 * The dialect-naming handle (db/client.ts `Db`): the same db/ operations core/ calls, given a
 * SQLite database or a PostgreSQL handle, pick their twin and answer alike; a PostgreSQL
 * transaction commits or rolls back whole, a nested one is a savepoint; the page rows a publish
 * walks (`openPageRows`) are the same on both.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { describePg } from '../../pg/harness'
import { queriesTwin, same, type QueriesTwin } from './queries/twin'
import { pgHandle, type Conn, type Tx } from '../../../db/client'
import { getTeam, updateTeamSettings, upsertContentType } from '../../../db/queries/teams'
import { openPageRows } from '../../../db/queries/events'
import { loadDoc, saveDoc, type SaveDoc } from '../../../db/store'

const page = (id: string, parent: string | null, published = true): SaveDoc => ({
  teamId: 'acme', id, canonicalId: id, kind: 'canonical', collection: 'pages', published,
  body: { contentType: 'page', fields: parent === null ? { slug: id } : { slug: id, parent } },
})

describePg('one handle per dialect: db/ operations pick their twin', () => {
  let t: QueriesTwin
  let both: () => Conn[]
  beforeAll(async () => {
    t = await queriesTwin()
    both = () => [pgHandle(t.sql), t.db]
  })
  afterAll(async () => {
    await t?.close()
  })

  test('the same call answers alike on both handles', async () => {
    const [pg, lite] = both()
    await same('getTeam', getTeam(pg!, 'acme'), getTeam(lite!, 'acme'))
    expect((await getTeam(pg!, 'acme'))?.id).toBe('acme')
  })

  test('a PostgreSQL transaction lands whole or not at all; a nested one is a savepoint', async () => {
    const h = pgHandle(t.sql)
    await expect(h.transaction(async (tx) => {
      await saveDoc(tx, page('pages/gone', null))
      throw new Error('stop')
    })).rejects.toThrow('stop')
    expect(await loadDoc(h, 'acme', 'pages/gone')).toBeNull()
    await h.transaction(async (tx) => {
      await saveDoc(tx, page('pages/kept', null))
      await tx.transaction(async (inner) => {
        await saveDoc(inner, page('pages/inner', null))
        throw new Error('inner')
      }).catch(() => undefined)
    })
    expect((await loadDoc(h, 'acme', 'pages/kept'))?.id).toBe('pages/kept')
    expect(await loadDoc(h, 'acme', 'pages/inner')).toBeNull()
  })

  test('updateTeamSettings with nothing to set writes nothing, on both', async () => {
    for (const conn of both()) {
      const before = await getTeam(conn, 'acme')
      await conn.transaction(async (tx: Tx) => await updateTeamSettings(tx, 'acme', {}))
      expect(await getTeam(conn, 'acme')).toEqual(before)
    }
  })

  test('openPageRows: the same page tree, read synchronously, on both', async () => {
    const answers = []
    for (const conn of both()) {
      await upsertContentType(conn, { teamId: 'acme', name: 'page', collection: 'pages', urls: true, definition: { name: 'page' } })
      for (const p of [page('pages/root', null), page('pages/b', 'pages/root'), page('pages/a', 'pages/root'), page('pages/c', 'pages/root', false), page('pages/a1', 'pages/a')]) {
        await saveDoc(conn, p)
      }
      answers.push(await conn.transaction(async (tx: Tx) => {
        const rows = await openPageRows(tx, 'acme')
        const ids = (rs: { id: string }[]) => rs.map((r) => r.id).sort()
        return {
          withUrls: [...rows.withUrls],
          root: rows.canonical('pages/root')?.content_type,
          unpublished: rows.canonical('pages/c')?.published,
          missing: rows.canonical('pages/none'),
          children: ids(rows.liveChildren('pages/root', 10)),
          grandchildren: ids(rows.liveChildren('pages/a', 10)),
          limited: rows.liveChildren('pages/root', 1).length,
        }
      }))
    }
    expect(answers[0]).toEqual({ withUrls: ['page'], root: 'page', unpublished: 0, missing: null, children: ['pages/a', 'pages/b'], grandchildren: ['pages/a1'], limited: 1 })
    expect(answers[0]).toEqual(answers[1]!)
  })
})
