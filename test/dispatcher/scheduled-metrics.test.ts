/**
 * `service_worker_publish_revisions` on the api's /metrics counts what the dispatcher
 * published: the dispatcher here has metrics of its own (as its process does), so the figure
 * can only come through the shared database.
 */
import { row, rows, run } from '../rows'
import { sqliteOf, sqliteOnly } from '../dialect'
import { failInserts } from '../rows'
import { storeFor } from './store-for'
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { createTestContext, holdWriteLock, TEAM, TOKENS, type TestContext } from '../helpers'
import { runDueSchedules } from '../../core/publish/scheduled'
import { createDispatcher } from '../../dispatcher/loop'
import { createLogger } from '../../core/log'
import { createMetrics } from '../../core/metrics'
import { seed } from '../../cli/seed'

let ctx: TestContext
beforeEach(async () => { ctx = await createTestContext() })
afterEach(() => ctx.close())

const workerSeries = async () => {
  const res = await ctx.call('GET', '/metrics', { token: TOKENS.translator })
  return res.text.split('\n').filter((l) => l.startsWith('service_worker_publish_revisions{'))
}
const schedule = async (id: string, at: number) => {
  const doc = { id: `${id}/draft`, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: id, slug: id.split('/')[1]! } } }
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
  expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id, publishAt: new Date(at).toISOString() } })).status).toBe(201)
}

test('a scheduled publish run by the dispatcher shows on the api /metrics as outcome="ok" 1', async () => {
  const now = Date.now()
  expect(await workerSeries()).toEqual([
    'service_worker_publish_revisions{outcome="ok"} 0',
    'service_worker_publish_revisions{outcome="superseded"} 0',
    'service_worker_publish_revisions{outcome="error"} 0',
  ])
  await schedule('pages/later', now + 1000)
  const d = createDispatcher({ db: ctx.db, ...storeFor(ctx.db), log: createLogger('silent', 'test'), metrics: createMetrics(), pollMs: 50, allowPrivateTargets: true })
  await d.runOnce(now) // not due yet
  expect(await workerSeries()).toContain('service_worker_publish_revisions{outcome="ok"} 0')
  await d.runOnce(now + 1000)
  expect((await ctx.call('GET', `/content/${TEAM}?id=pages/later`)).body.__publishedBy).toBe('u-editor')
  expect(await workerSeries()).toEqual([
    'service_worker_publish_revisions{outcome="ok"} 1',
    'service_worker_publish_revisions{outcome="superseded"} 0',
    'service_worker_publish_revisions{outcome="error"} 0',
  ])
  // A schedule whose document went away is refused, not counted (no version was recorded).
  await schedule('pages/gone', now + 2000)
  await run(ctx.db, `DELETE FROM documents WHERE id = 'pages/gone/scheduled'`)
  await d.runOnce(now + 2000)
  expect((await row(ctx.db, 'SELECT COUNT(*) AS n FROM schedules'))).toEqual({ n: 0 })
  expect(await workerSeries()).toContain('service_worker_publish_revisions{outcome="ok"} 1')
  expect(await workerSeries()).toContain('service_worker_publish_revisions{outcome="error"} 0')
})

test('a scheduled publish that fails holds back only itself: the others due at that poll are published, it is counted error and tried again after a minute', async () => {
  const now = Date.now()
  for (const id of ['pages/sa', 'pages/sb', 'pages/sc']) await schedule(id, now)
  // The file refuses pages/sb's revision (a full disk, say): its publish rolls back whole.
  const allow = await failInserts(ctx.db, 'revisions', 'disk says no', "NEW.document_id = 'pages/sb'")
  const errors: string[] = []
  const log = createLogger('error', 'test', { write: (line: string) => { errors.push(JSON.parse(line).documentId) } })
  const d = createDispatcher({ db: ctx.db, ...storeFor(ctx.db), log, metrics: createMetrics(), pollMs: 50, allowPrivateTargets: true })
  const live = async () => {
    const out: Record<string, boolean> = {}
    for (const id of ['pages/sa', 'pages/sb', 'pages/sc']) out[id] = (await ctx.call('GET', `/content/${TEAM}?id=${id}`)).status === 200
    return out
  }
  await d.runOnce(now)
  expect(await live()).toEqual({ 'pages/sa': true, 'pages/sb': false, 'pages/sc': true })
  expect(errors).toEqual(['pages/sb'])
  expect(await workerSeries()).toEqual([
    'service_worker_publish_revisions{outcome="ok"} 2',
    'service_worker_publish_revisions{outcome="superseded"} 0',
    'service_worker_publish_revisions{outcome="error"} 1',
  ])
  // Not tried at every poll while it keeps failing; tried again a minute later, and then published.
  await d.runOnce(now + 1000)
  expect(errors).toEqual(['pages/sb'])
  await allow()
  await d.runOnce(now + 30_000)
  expect((await live())['pages/sb']).toBe(false)
  await d.runOnce(now + 61_000)
  expect(await live()).toEqual({ 'pages/sa': true, 'pages/sb': true, 'pages/sc': true })
  expect(await workerSeries()).toContain('service_worker_publish_revisions{outcome="ok"} 3')
  expect((await row(ctx.db, 'SELECT COUNT(*) AS n FROM schedules'))).toEqual({ n: 0 })
})

sqliteOnly('another connection holds the SQLite write lock; PostgreSQL has none').test('a scheduled publish stopped by another process\'s write lock is no failure: not counted, not held back, published at the next poll', async () => {
  const now = Date.now()
  for (const id of ['pages/la', 'pages/lb']) await schedule(id, now)
  const other = holdWriteLock(ctx.path)
  sqliteOf(ctx.db).$client.exec('PRAGMA busy_timeout = 50')
  const failed: string[] = []
  try {
    // mayWrite says yes (the lock was taken just after it looked): the publish meets the lock itself.
    expect(await runDueSchedules(ctx.db, null, now, () => true, (s) => failed.push(s.documentId))).toEqual([])
  } finally {
    other.release()
    sqliteOf(ctx.db).$client.exec('PRAGMA busy_timeout = 10000')
  }
  expect(failed).toEqual([])
  expect((await rows(ctx.db, 'SELECT document_id AS id, lease_expires_at AS hold FROM schedules ORDER BY document_id'))).toEqual([{ id: 'pages/la', hold: null }, { id: 'pages/lb', hold: null }])
  expect(await workerSeries()).toContain('service_worker_publish_revisions{outcome="error"} 0')
  expect((await runDueSchedules(ctx.db, null, now + 250)).map((i) => i.id).sort()).toEqual(['pages/la', 'pages/lb'])
})

test('a schedule whose author may no longer publish (capability taken away, token revoked, left the team) publishes nothing: counted error, held back, published once the right is back', async () => {
  const now = Date.now()
  // A second publisher, so the test's own editor token stays usable.
  const lead = async (token: string | null, capabilities: string[]) =>
    await seed(ctx.db, null, { teams: [{ id: TEAM, workspaceId: 'main', locales: ['en', 'de', 'fr'], defaultLocale: 'en', users: [{ id: 'u-lead', token, capabilities }] }] })
  await lead('tok-lead-0123456789', ['EditContent', 'ChangeLiveContent'])
  const doc = { id: 'pages/timed/draft', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'T', slug: 'timed' } } }
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
  const scheduled = await ctx.call('POST', `/content/schedule/${TEAM}`, { token: 'tok-lead-0123456789', body: { id: 'pages/timed', publishAt: new Date(now).toISOString() } })
  expect(scheduled.status).toBe(201)
  const errors: string[] = []
  const log = createLogger('error', 'test', { write: (line: string) => { errors.push(JSON.parse(line).err.message) } })
  const d = createDispatcher({ db: ctx.db, ...storeFor(ctx.db), log, metrics: createMetrics(), pollMs: 50, allowPrivateTargets: true })
  const live = async () => (await ctx.call('GET', `/content/${TEAM}?id=pages/timed`)).status === 200
  const pending = async () => (await ctx.call('GET', `/content/history/${TEAM}?id=pages/timed`)).body.scheduled?.scheduledBy

  await lead('tok-lead-0123456789', ['EditContent'])
  await d.runOnce(now)
  expect(await live()).toBe(false)
  expect(errors).toEqual(['Not published: user u-lead no longer has ChangeLiveContent. Schedule it again as a user who may publish, or unschedule it.'])
  expect(await pending()).toBe('u-lead') // still shown, for someone who may publish to act on
  expect(await workerSeries()).toContain('service_worker_publish_revisions{outcome="error"} 1')

  await lead(null, ['EditContent', 'ChangeLiveContent'])
  await d.runOnce(now + 61_000)
  expect(errors.at(-1)).toBe('Not published: the token of user u-lead has been revoked. Schedule it again as a user who may publish, or unschedule it.')

  await lead('tok-lead-new-0123456789', ['EditContent', 'ChangeLiveContent'])
  await run(ctx.db, `DELETE FROM memberships WHERE user_id = 'u-lead'`)
  await d.runOnce(now + 122_000)
  expect(errors.at(-1)).toBe('Not published: user u-lead is no longer a member of this team. Schedule it again as a user who may publish, or unschedule it.')
  expect(await live()).toBe(false)

  // The right given back (a new token, the capability): the schedule goes out, stamped by its author.
  await lead('tok-lead-new-0123456789', ['EditContent', 'ChangeLiveContent'])
  await d.runOnce(now + 183_000)
  expect(errors).toHaveLength(3)
  const published = await ctx.call('GET', `/content/${TEAM}?id=pages/timed`)
  expect(published.status).toBe(200)
  expect(published.body.__publishedBy).toBe('u-lead')
  expect(await workerSeries()).toEqual([
    'service_worker_publish_revisions{outcome="ok"} 1',
    'service_worker_publish_revisions{outcome="superseded"} 0',
    'service_worker_publish_revisions{outcome="error"} 3',
  ])
})
