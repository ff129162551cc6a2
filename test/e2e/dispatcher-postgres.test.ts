/**
 * The dispatcher as a real process on PostgreSQL (DATABASE_URL), beside a real api on the same
 * fresh database (seeded as test/e2e/api-postgres.test.ts does: the seed is written to SQLite and
 * copied over with `cli copy-to-postgres`): a publish over HTTP reaches a real receiver on
 * 127.0.0.1, signed, and the delivery log over HTTP says delivered; a scheduled publish due in
 * about a second is published by the dispatcher and its event delivered too; a burst of team
 * setting changes (one of them the content index, which the index job must catch up first)
 * yields one site.changed. No SQLite file is made.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { seed } from '../../cli/seed'
import { verifySignature } from '../../receiver'
import { collectOutput, makeTestDir, spawnApi, testSeed, TEAM, TOKENS, waitFor } from '../helpers'
import { describePg, pgDatabase, type PgTestDatabase } from '../pg/harness'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { kill, root } from './dispatcher-fixture'

const dir = makeTestDir('dispatcher-pg-')
const seeded = join(dir, 'seeded.db')
const never = join(dir, 'never', 'content.db')

describePg('the dispatcher on PostgreSQL', () => {
  let pg: PgTestDatabase
  let api: ReturnType<typeof spawnApi>
  let dispatcher: ReturnType<typeof Bun.spawn>
  let dispatcherOut: ReturnType<typeof collectOutput>
  let dispatcherErr: ReturnType<typeof collectOutput>
  let rx: TestReceiver
  let base: string
  beforeAll(async () => {
    const db = openDb(seeded)
    await seed(db, null, testSeed())
    db.$client.close()
    pg = await pgDatabase()
    const copy = Bun.spawnSync(['bun', 'cli/main.ts', 'copy-to-postgres', '--from', seeded, '--to', pg.url], { cwd: root, env: process.env })
    if (copy.exitCode !== 0) throw new Error(`copy-to-postgres: ${copy.stderr.toString()}`)
    rx = startReceiver()
    const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DATABASE_PATH: never, DATABASE_URL: pg.url }
    api = spawnApi(env)
    base = `http://127.0.0.1:${(await api.listening()).port}`
    dispatcher = Bun.spawn(['bun', 'dispatcher/main.ts'], {
      cwd: root, stdout: 'pipe', stderr: 'pipe',
      env: { ...process.env, ...env, LOG_LEVEL: 'info', DISPATCHER_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '1000', DISPATCHER_LEASE_MS: '5000', SITE_CHANGE_QUIET_MS: '300', SITE_CHANGE_MAX_HOLD_MS: '60000' },
    })
    dispatcherOut = collectOutput(dispatcher.stdout as ReadableStream<Uint8Array>)
    dispatcherErr = collectOutput(dispatcher.stderr as ReadableStream<Uint8Array>)
    await waitFor(() => dispatcherOut.text.includes('dispatcher started'), 20_000, 'dispatcher started')
  }, 60_000)
  afterAll(async () => {
    if (dispatcher) await kill(dispatcher)
    await api?.stop()
    rx?.stop()
    await pg?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  const call = async (method: string, url: string, body?: unknown, token = TOKENS.editor) => {
    const res = await fetch(base + url, {
      method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    })
    return { status: res.status, body: await res.json() as any }
  }

  test('it started on PostgreSQL: its log names the masked URL, and no SQLite file is made', () => {
    const started = dispatcherOut.text.split('\n').find((l) => l.includes('dispatcher started'))!
    expect(JSON.parse(started)).toMatchObject({ databaseUrl: expect.stringMatching(new RegExp(`^postgres.*/${pg.name}$`)) })
    expect(JSON.parse(started).databasePath).toBeUndefined()
    expect(existsSync(never)).toBe(false)
  })

  test('a publish over HTTP reaches the receiver signed; the delivery log says delivered; a scheduled publish is published and delivered', async () => {
    const hook = await call('POST', `/teams/${TEAM}/webhooks`, { label: 'e2e', provider: 'custom', target: rx.url, events: ['content.published'] }, TOKENS.webhooks)
    expect(hook.status).toBe(201)
    const doc = { id: 'pages/about', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'About', slug: 'about' } } }
    expect((await call('POST', `/content/${TEAM}`, doc)).status).toBe(200)
    const published = await call('POST', `/content/publish/${TEAM}`, { ids: ['pages/about'] })
    expect(published.body[0].status).toBe(0)

    await waitFor(() => rx.requests.length > 0, 10_000, 'the publish event')
    const [req] = rx.requests
    expect(verifySignature(req!.body, req!.headers['x-service-signature'], hook.body.secret)).toBe(true)
    expect(JSON.parse(req!.body)).toMatchObject({ eventType: 'content.published', teamId: TEAM, documentId: 'pages/about', url: '/about', userId: 'u-editor' })
    const deliveries = async () => (await call('GET', `/teams/${TEAM}/webhooks/${hook.body.id}/deliveries`, undefined, TOKENS.webhooks)).body as any[]
    const delivered = await waitFor(async () => {
      const rows = await deliveries()
      return rows.length === 1 && rows[0].status === 'delivered' ? rows : null
    }, 10_000, 'the delivery log says delivered')
    expect(delivered.map((d) => [d.eventId, d.eventType, d.attempts.map((a: any) => [a.attempt, a.statusCode])])).toEqual([
      [JSON.parse(req!.body).eventId, 'content.published', [[1, 200]]],
    ])

    const draft = { id: 'pages/sched/draft', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'Scheduled', slug: 'sched' } } }
    expect((await call('POST', `/content/${TEAM}`, draft)).status).toBe(200)
    const publishAt = new Date(Date.now() + 1000).toISOString()
    expect((await call('POST', `/content/schedule/${TEAM}`, { id: 'pages/sched', publishAt })).status).toBe(201)
    await waitFor(() => rx.requests.length > 1, 15_000, 'the scheduled publish event')
    const sched = rx.requests[1]!
    expect(verifySignature(sched.body, sched.headers['x-service-signature'], hook.body.secret)).toBe(true)
    expect(JSON.parse(sched.body)).toMatchObject({ eventType: 'content.published', documentId: 'pages/sched', url: '/sched', userId: null })
    expect(sched.at).toBeGreaterThanOrEqual(Date.parse(publishAt))
    expect((await call('GET', `/content/${TEAM}?id=pages/sched`)).status).toBe(200)
    expect(dispatcherOut.text).toContain('scheduled publish')
    await waitFor(async () => (await deliveries()).filter((d) => d.status === 'delivered').length === 2, 10_000, 'both delivered in the log')
    // Every step of every pass ran on PostgreSQL without failing (the index job and site changes included).
    expect(dispatcherOut.text + dispatcherErr.text).not.toContain('step failed')
  }, 60_000)

  test('a burst of site changes yields one site.changed, after the index job has caught up', async () => {
    const hook = await call('POST', `/teams/${TEAM}/webhooks`, { label: 'site', provider: 'custom', target: `${rx.url}?site`, events: ['site.changed'] }, TOKENS.webhooks)
    expect(hook.status).toBe(201)
    const siteEvents = () => rx.requests.filter((r) => JSON.parse(r.body).eventType === 'site.changed')
    for (const [path, body] of [
      ['/locales', { locales: ['en', 'de'], defaultLocale: 'en' }],
      ['/localization', { fallbacks: { de: 'en' } }],
      ['/content-index', { fields: ['title'] }],
      ['/locales', { locales: ['en', 'de', 'fr'], defaultLocale: 'en' }],
    ] as const) expect((await call('PUT', `/teams/${TEAM}${path}`, body)).status).toBe(200)
    await waitFor(() => siteEvents().length > 0, 10_000, 'site.changed')
    await Bun.sleep(800)
    const sent = siteEvents()
    expect(sent.map((r) => JSON.parse(r.body)).map(({ eventType, status, scope, documentId, userId }) => ({ eventType, status, scope, documentId, userId }))).toEqual([
      { eventType: 'site.changed', status: 'locales', scope: 'site', documentId: null, userId: 'u-editor' },
    ])
    expect(verifySignature(sent[0]!.body, sent[0]!.headers['x-service-signature'], hook.body.secret)).toBe(true)
    expect(dispatcherOut.text).toContain('site.changed emitted')
    expect(dispatcherOut.text + dispatcherErr.text).not.toContain('step failed')
  }, 60_000)
})
