/**
 * Races on PostgreSQL through the api as a real process, answered as on SQLite (issue 33): the
 * same requests, started at once, against an api on a SQLite file and one on PostgreSQL. A
 * backend killed in the middle of a write answers SQLite's `503 busy`, and nothing of it is kept.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { busyAnswer } from '../../core/errors'
import { CONCURRENT_CHANGE, IF_MATCH_FAILED } from '../../core/restore/service'
import { describePg } from '../pg/harness'
import { TEAM, waitFor } from '../helpers'
import { content, page, race, startRaceApis, type Answer, type Call, type RaceApis } from './pg-races-fixture'

const N = 6
const etagOf = (a: Answer) => Number(/^"A:(\d+)-/.exec(a.etag ?? '')?.[1] ?? NaN)

describePg('races on PostgreSQL answer as on SQLite', () => {
  let apis: RaceApis
  beforeAll(async () => { apis = await startRaceApis() }, 60_000)
  afterAll(async () => { await apis?.stop() })

  const both = async <T>(fn: (call: Call, engine: 'sqlite' | 'pg') => Promise<T>) => ({ sqlite: await fn(apis.on.sqlite, 'sqlite'), pg: await fn(apis.on.pg, 'pg') })

  test('clients creating the same new document at once: each write lands whole, one after another', async () => {
    const found = await both(async (call) => {
      const answers = await race(N, (i) => call('POST', content, page('pages/same', `Title ${i}`)))
      const last = answers.filter((a) => a.status === 200).sort((a, b) => etagOf(a) - etagOf(b)).at(-1)
      const stored = await call('GET', `${content}?id=pages/same`)
      const activity = await call('GET', `${content}?id=${encodeURIComponent('pages/same/activity')}`)
      return {
        statuses: answers.map((a) => a.status),
        storedIsLastLanded: stored.body.locales.en.title === last?.body.locales.en.title,
        activityEntries: activity.body.entries.map((e: any) => `${e.kind} ${e.locale}`).sort(),
      }
    })
    // SQLite serialises the writers: each replaces the one before (no If-Match), one EDIT each.
    expect(found.sqlite.statuses).toEqual(Array(N).fill(200))
    expect(found.pg).toEqual(found.sqlite)
  }, 60_000)

  test('concurrent PATCHes with the same If-Match: one lands, the others get the same 409', async () => {
    const found = await both(async (call) => {
      expect((await call('POST', content, page('pages/patched', 'Start'))).status).toBe(200)
      const read = await call('GET', `${content}?id=pages/patched`)
      const answers = await race(N, (i) => call('PATCH', `${content}?id=pages/patched`, [{ op: 'replace', path: '/locales/en/title', value: `Patched ${i}` }], { 'if-match': read.etag! }))
      const won = answers.filter((a) => a.status === 200)
      const stored = await call('GET', `${content}?id=pages/patched`)
      return {
        won: won.length,
        refused: answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body]),
        storedIsWinner: won.length === 1 && stored.body.locales.en.title === won[0]!.body.locales.en.title,
      }
    })
    expect(found.sqlite.won).toBe(1)
    expect(found.sqlite.refused[0]?.[0]).toBe(409)
    expect(found.pg).toEqual(found.sqlite)
  }, 60_000)

  test('concurrent restores with the same If-Match: one lands, the others get 409 with the spec\'s batch list', async () => {
    const found = await both(async (call) => {
      for (const title of ['v1', 'v2']) {
        expect((await call('POST', content, page('pages/restored', title))).status).toBe(200)
        expect((await call('POST', `/content/publish/${TEAM}`, { ids: ['pages/restored'] })).status).toBe(200)
      }
      const v1 = (await call('GET', `/content/versions/${TEAM}?id=pages/restored`)).body.rows.at(-1).version
      expect((await call('POST', content, page('pages/restored/draft', 'draft'))).status).toBe(200)
      const draft = await call('GET', `${content}?id=${encodeURIComponent('pages/restored/draft')}`)
      const answers = await race(N, () => call('POST', `/content/apply-version/${TEAM}`, { kind: 'revision', documentId: 'pages/restored', version: v1, locales: ['en'] }, { 'if-match': draft.etag! }))
      const refused = answers.filter((a) => a.status !== 200)
      const activity = await call('GET', `${content}?id=${encodeURIComponent('pages/restored/activity')}`)
      return {
        won: answers.length - refused.length,
        refusedAsSpecSays: refused.every((a) => a.status === 409 && a.body.length === 1 && a.body[0].id === 'pages/restored' && a.body[0].status === 1 && [IF_MATCH_FAILED, CONCURRENT_CHANGE].includes(a.body[0].reason)),
        restoresLogged: activity.body.entries.filter((e: any) => e.kind === 'APPLY_REVISION').length,
        draftTitle: (await call('GET', `${content}?id=${encodeURIComponent('pages/restored/draft')}`)).body.locales.en.title,
      }
    })
    expect(found.sqlite).toEqual({ won: 1, refusedAsSpecSays: true, restoresLogged: 1, draftTitle: 'v1' })
    expect(found.pg).toEqual(found.sqlite)
  }, 60_000)

  test('a backend killed in the middle of a write: 503 busy with Retry-After, nothing of the write kept', async () => {
    const call = apis.on.pg
    expect((await call('POST', content, page('pages/killed', 'Before'))).status).toBe(200)
    const activityBefore = (await call('GET', `${content}?id=${encodeURIComponent('pages/killed/activity')}`)).body
    const sql = new SQL({ url: apis.pg.url, max: 2 })
    try {
      // Hold the activity row: the api's write updates the document, then waits for that row.
      let release!: () => void
      const released = new Promise<void>((r) => { release = r })
      const { promise: locked, resolve: lockedNow } = Promise.withResolvers<number>()
      const holding = sql.begin(async (tx) => {
        const rows = await tx`SELECT 1 FROM documents WHERE team_id = ${TEAM} AND id = 'pages/killed/activity' FOR UPDATE`
        lockedNow(rows.length)
        await released
      })
      expect(await locked).toBe(1)
      const answer = call('POST', content, page('pages/killed', 'After'))
      const waiting = await waitFor(async () => {
        const [row] = await sql`SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'content-service api%' AND wait_event_type = 'Lock'`
        return row?.pid as number | undefined
      }, 20_000, 'the api waiting for the held row')
      await sql`SELECT pg_terminate_backend(${waiting})`
      const got = await answer
      release()
      await holding
      expect({ status: got.status, body: got.body, retryAfter: got.retryAfter }).toEqual({ status: 503, body: busyAnswer({ warn() {} }), retryAfter: '1' })
    } finally {
      await sql.close()
    }
    expect((await call('GET', `${content}?id=pages/killed`)).body.locales.en.title).toBe('Before')
    expect((await call('GET', `${content}?id=${encodeURIComponent('pages/killed/activity')}`)).body).toEqual(activityBefore)
    // The pool opens a new connection in its place.
    expect((await call('POST', content, page('pages/killed', 'Later'))).status).toBe(200)
  }, 60_000)
})
