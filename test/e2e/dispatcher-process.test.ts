/**
 * End to end: the REAL dispatcher process (`bun dispatcher/main.ts`) on the database of a
 * `createApp` instance (the SQLite file, or PostgreSQL on that pass), delivering to real
 * receivers on 127.0.0.1.
 */
import { sqliteOf } from '../dialect'
import { expect, test } from 'bun:test'
import { rows } from '../rows'
import { pgDatabase } from '../pg/harness'
import { collectOutput, makeTestDir, TEAM, TOKENS, waitFor } from '../helpers'
import { startReceiver } from '../test-receiver'
import { join } from 'node:path'
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dispatcherFixture, root, kill } from './dispatcher-fixture'

const { cleanup, setup } = dispatcherFixture()

test('the compiled binary (package.json "build:dispatcher") delivers, reads no .env or bunfig.toml from its working directory, stops cleanly while it waits for the migration, and (on SQLite) its worker checkpoints the WAL', async () => {
  const { ctx, rx, spawn, publish } = await setup()
  const dir = makeTestDir('content-binary-')
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
  const script = ((await Bun.file(join(root, 'package.json')).json()) as { scripts: Record<string, string> }).scripts['build:dispatcher']!
  const outfile = join(dir, 'content-dispatcher')
  const build = Bun.spawn(['sh', '-c', script.replace('dist/content-dispatcher', outfile)], { cwd: root, stdout: 'ignore', stderr: 'pipe' })
  expect(await build.exited).toBe(0)
  // The unit's working directory is the service user's writable data directory: a file dropped
  // there must not set settings (Bun reads .env by default) or run code (bunfig.toml preload).
  const work = join(dir, 'work')
  mkdirSync(work)
  writeFileSync(join(work, '.env'), 'DISPATCHER_PER_WEBHOOK=not-a-number\n')
  writeFileSync(join(work, 'preload.ts'), `require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'preloaded'))}, 'x')\n`)
  writeFileSync(join(work, 'bunfig.toml'), 'preload = ["./preload.ts"]\n')
  const binary = spawn([outfile], work)
  await publish('pages/binary')
  await waitFor(() => rx.requests.length > 0, 10_000, 'delivery from the binary')
  expect(JSON.parse(rx.requests[0]!.body)).toMatchObject({ eventType: 'content.published', documentId: 'pages/binary' })
  expect({ exited: binary.exitCode, preloaded: existsSync(join(dir, 'preloaded')) }).toEqual({ exited: null, preloaded: false })

  // On a database the api has not migrated yet it waits; a stop then is prompt, logged and exit 0.
  const fresh = ctx.db.engine === 'pg' ? await pgDatabase({ migrate: false }) : null
  if (fresh) cleanup.push(() => fresh.drop())
  const waiting = Bun.spawn([outfile], {
    cwd: work, stdout: 'pipe', stderr: 'inherit',
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', DATABASE_PATH: join(dir, 'fresh.db'), ...(fresh ? { DATABASE_URL: fresh.url } : {}), LOG_LEVEL: 'info' },
  })
  cleanup.push(() => kill(waiting, 'SIGKILL'))
  const output = collectOutput(waiting.stdout)
  await waitFor(() => output.text.includes('waiting for the api to migrate'), 10_000, 'the binary waits for the migration')
  waiting.kill('SIGTERM')
  expect(await waiting.exited).toBe(0)
  await output.done
  expect(output.text).toContain('"msg":"dispatcher stopping"')
  if (ctx.db.engine === 'pg') return // what follows is the SQLite file's: its mode and its WAL
  // The file it created for the api to migrate is its user's alone (test/e2e/file-modes.test.ts).
  expect((statSync(join(dir, 'fresh.db')).mode & 0o777).toString(8)).toBe('600')

  // Only the worker copies the WAL back now: the api connection's automatic checkpoints are off.
  sqliteOf(ctx.db).$client.exec('PRAGMA wal_autocheckpoint = 0')
  const fileSize = () => statSync(ctx.path).size
  await Bun.sleep(1200) // one checkpoint interval: the file holds everything written so far
  const before = fileSize()
  sqliteOf(ctx.db).$client.exec('CREATE TABLE filler (b BLOB)')
  for (let i = 0; i < 200; i++) sqliteOf(ctx.db).$client.query('INSERT INTO filler (b) VALUES (randomblob(4000))').run()
  expect(fileSize()).toBe(before) // 800 KB sit in the WAL
  await waitFor(() => fileSize() > before + 500_000, 5000, 'the checkpoint worker copied the WAL back')
})

test('three failed attempts in all (1-2 s, then 2-3 s apart), then failed for good: no fourth', async () => {
  const { ctx, rx, spawn, publish, attempts } = await setup({ answers: [{ status: 503 }, { status: 502 }, { status: 500 }, { status: 200 }] })
  spawn()
  await publish('pages/down')
  await waitFor(() => rx.requests.length >= 3, 15_000, 'the third attempt')
  const [a, b, c] = rx.requests.map((r) => r.at)
  expect(b! - a!).toBeGreaterThanOrEqual(1000)
  expect(b! - a!).toBeLessThan(2300)
  expect(c! - b!).toBeGreaterThanOrEqual(2000)
  expect(c! - b!).toBeLessThan(3300)
  expect(new Set(rx.requests.map((r) => r.headers['x-service-delivery'])).size).toBe(1)
  await waitFor(async () => (await attempts()).length === 3, 5000, 'the third attempt recorded')
  await Bun.sleep(3500) // a fourth would come within 3 s
  expect(rx.requests).toHaveLength(3)
  expect(await attempts()).toEqual([
    { attempt: 1, statusCode: 503, error: null }, { attempt: 2, statusCode: 502, error: null }, { attempt: 3, statusCode: 500, error: null },
  ])
  expect(await rows(ctx.db, 'SELECT status, lease_token AS lease FROM outbox')).toEqual([{ status: 'failed', lease: null }])
})

test('redelivery through the api: the process sends the same bytes, delivery id and signature again, and logs it as a manual attempt', async () => {
  const { ctx, rx, hookId, spawn, publish } = await setup({ answers: [{ status: 404 }, { status: 200 }] })
  spawn()
  await publish('pages/again')
  await waitFor(() => rx.requests.length === 1, 10_000, 'the first (final) attempt')
  const eventId = rx.requests[0]!.headers['x-service-delivery']!
  const log = async () => (await ctx.call('GET', `/teams/${TEAM}/webhooks/${hookId}/deliveries`, { token: TOKENS.webhooks })).body
  await waitFor(async () => (await log())[0]?.status === 'failed', 5000, 'failed in the log')
  const res = await ctx.call('POST', `/teams/${TEAM}/webhooks/${hookId}/deliveries/${eventId}/redeliver`, { token: TOKENS.webhooks })
  expect(res.status).toBe(202)
  await waitFor(() => rx.requests.length === 2, 10_000, 'the redelivery')
  const [first, again] = rx.requests
  expect(again!.body).toBe(first!.body)
  for (const h of ['x-service-delivery', 'x-service-signature', 'x-service-event']) expect(again!.headers[h]).toBe(first!.headers[h]!)
  await waitFor(async () => (await log())[0]?.status === 'delivered', 5000, 'delivered in the log')
  const [item] = await log()
  expect(item.eventId).toBe(eventId)
  // A redelivery has a fresh budget of 3 attempts, logged as manual (docs/webhooks-delivery.md#retries).
  expect(item.attempts.map((x: { attempt: number; trigger: string; statusCode: number }) => [x.attempt, x.trigger, x.statusCode])).toEqual([[1, 'scheduled', 404], [1, 'manual', 200]])
})

test('one hung receiver holds back no other webhook (its sends stay within DISPATCHER_PER_WEBHOOK)', async () => {
  // Two send slots in all, one per webhook: a shared first-come queue would soon have both
  // slots waiting on the hung receiver and the other site's events 4 s late.
  const { ctx, rx, spawn, publish } = await setup({ env: { WEBHOOK_TIMEOUT_MS: '4000', DISPATCHER_LEASE_MS: '60000', DISPATCHER_CONCURRENCY: '2', DISPATCHER_PER_WEBHOOK: '1' } })
  const hung = startReceiver([{ status: 200, delayMs: 3500 }])
  cleanup.push(() => hung.stop())
  expect((await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'hung', provider: 'custom', target: hung.url } })).status).toBe(201)
  spawn()
  const ids = Array.from({ length: 8 }, (_, i) => `pages/iso-${i}`)
  for (const id of ids) await publish(id)
  const published = Date.now()
  await waitFor(() => rx.requests.length >= ids.length, 10_000, 'every event at the healthy receiver')
  // Well inside the 1 s after which a stalled send leaves the shared slots (docs/architecture.md#the-dispatcher).
  expect(Date.now() - published).toBeLessThan(900)
  expect(hung.requests.length).toBe(1)
  expect(rx.requests.map((r) => JSON.parse(r.body).documentId).sort()).toEqual([...ids].sort())
})

test('SIGTERM hands back rows claimed ahead and not yet sent: no lease left to wait out, a restart sends them at once', async () => {
  // One send at a time for the webhook. Once it has answered inside 1 s (a fast receiver), the
  // process claims up to 4 more ahead of the send in flight; they wait in its queue, leased.
  const { ctx, rx, spawn, publish } = await setup({
    answers: [{ status: 200, delayMs: 600 }], env: { WEBHOOK_TIMEOUT_MS: '5000', DISPATCHER_LEASE_MS: '60000', DISPATCHER_PER_WEBHOOK: '1' },
  })
  const ids = Array.from({ length: 8 }, (_, i) => `pages/handback-${i}`)
  for (const id of ids) await publish(id)
  const p = spawn()
  await waitFor(() => rx.requests.length >= 2, 10_000, 'the second send')
  p.kill('SIGTERM')
  expect(await p.exited).toBe(0)
  const outbox = () => rows<{ status: string; lease: string | null }>(ctx.db, 'SELECT status, lease_token AS lease FROM outbox ORDER BY seq')
  expect((await outbox()).filter((r) => r.lease !== null)).toEqual([]) // the one in flight recorded, the rest handed back
  const delivered = (await outbox()).filter((r) => r.status === 'delivered').length
  expect(delivered).toBe(rx.requests.length)
  expect(delivered).toBeLessThan(ids.length)
  const t0 = Date.now()
  spawn()
  await waitFor(async () => (await outbox()).every((r) => r.status === 'delivered'), 15_000, 'the rest after the restart')
  expect(Date.now() - t0).toBeLessThan(10_000) // not after the 60 s lease
  expect(rx.requests.map((r) => JSON.parse(r.body).documentId).sort()).toEqual([...ids].sort())
})
