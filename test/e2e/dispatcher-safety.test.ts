/**
 * End to end: the REAL dispatcher process (`bun dispatcher/main.ts`) on the database of a
 * `createApp` instance (the SQLite file, or PostgreSQL on that pass), delivering to real
 * receivers on 127.0.0.1.
 */
import { sqliteOnly } from '../dialect'
import { expect, test } from 'bun:test'
import { count, rows, run } from '../rows'
import type { Db } from '../../db/client'
import { holdWriteLock, TEAM, TOKENS, waitFor } from '../helpers'
import { startReceiver, TLS_FIXTURE } from '../test-receiver'
import { verifySignature } from '../../receiver'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { blockedAddressReason, systemLookup } from '../../core/delivery/ssrf'
import { dispatcherFixture } from './dispatcher-fixture'

const { cleanup, setup } = dispatcherFixture()

test('SSRF: a target resolving to 127.0.0.1 is refused at send time when private targets are not allowed', async () => {
  const { ctx, rx, hookId, spawn, publish, attempts } = await setup({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } })
  // Saved while the api allowed it (as a DNS change would do later): the send-time check must catch it.
  await run(ctx.db, 'UPDATE webhooks SET target = ? WHERE id = ?', `https://127.0.0.1:${rx.port}/hook`, hookId)
  spawn()
  await publish('pages/ssrf')
  await waitFor(async () => (await attempts()).length > 0, 10_000, 'refused attempt')
  await Bun.sleep(1500)
  expect(await attempts()).toEqual([{ attempt: 1, statusCode: null, error: expect.stringMatching(/^refused: .*public address \(loopback; a receiver there needs WEBHOOK_ALLOW_PRIVATE_TARGETS=true\)/) }])
  expect(await rows(ctx.db, 'SELECT status FROM outbox')).toEqual([{ status: 'failed' }])
  expect(rx.requests).toHaveLength(0)
})

test('SSRF: a host NAME resolving to a private address is refused after the DNS lookup', async () => {
  const addresses = await systemLookup(hostname()).catch(() => [] as string[])
  if (addresses.length === 0 || addresses.some((a) => !blockedAddressReason(a))) return // needs a host name that resolves privately
  const { ctx, rx, hookId, spawn, publish, attempts } = await setup({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } })
  await run(ctx.db, 'UPDATE webhooks SET target = ? WHERE id = ?', `https://${hostname()}:${rx.port}/hook`, hookId)
  spawn()
  await publish('pages/ssrf-dns')
  await waitFor(async () => (await attempts()).length > 0, 10_000, 'refused attempt')
  // The log tells no more than a name that does not resolve would (docs/security.md); the log line says why.
  expect(await attempts()).toEqual([{ attempt: 1, statusCode: null, error: 'target is not a reachable public address' }])
  expect(rx.requests).toHaveLength(0)
})

test('https targets: delivered over TLS with the certificate verified against the host name', async () => {
  // The dispatcher trusts the fixture's self-signed certificate (for hook.test and localhost) the
  // way an operator adds a private CA: NODE_EXTRA_CA_CERTS.
  const { ctx, spawn, publish, attempts } = await setup({ env: { NODE_EXTRA_CA_CERTS: TLS_FIXTURE.cert } })
  const tls = startReceiver([{ status: 200, body: 'ok' }], { tls: true })
  cleanup.push(() => tls.stop())
  const create = (target: string) => ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'tls', provider: 'custom', target } })
  const good = await create(tls.url)
  // The same server by address: the certificate does not name 127.0.0.1, so TLS must refuse it.
  const wrongName = await create(`https://127.0.0.1:${tls.port}/hook`)
  spawn()
  await publish('pages/tls')
  await waitFor(() => tls.requests.length > 0, 10_000, 'delivery over TLS')
  expect(verifySignature(tls.requests[0]!.body, tls.requests[0]!.headers['x-service-signature'], good.body.secret)).toBe(true)
  expect(tls.requests[0]!.headers.host).toBe(`localhost:${tls.port}`)
  const byHook = (id: string) => rows(ctx.db, 'SELECT attempt, status_code AS "statusCode", error FROM delivery_attempts WHERE webhook_id = ? ORDER BY id', id)
  // Answers are recorded in batches: the receiver can have the request before its attempt row exists.
  await waitFor(async () => (await byHook(good.body.id)).length > 0 && (await byHook(wrongName.body.id)).length > 0, 10_000, 'both TLS attempts recorded')
  expect(await byHook(good.body.id)).toEqual([{ attempt: 1, statusCode: 200, error: null }])
  expect((await byHook(wrongName.body.id))[0]).toEqual({ attempt: 1, statusCode: null, error: expect.stringMatching(/^network error: .*(ALTNAME|CERT)/) })
  expect(tls.requests).toHaveLength(1)
  expect((await attempts()).length).toBeGreaterThanOrEqual(3) // plus the plain-http webhook of setup()
})

test('a receiver that is down does not slow publishing', async () => {
  const { ctx, rx, spawn, publish } = await setup()
  rx.stop() // connection refused from now on
  const dead = startReceiver([{ status: 200, delayMs: 5000 }])
  cleanup.push(() => dead.stop())
  await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'hung', provider: 'custom', target: dead.url } })
  spawn()
  const latencies: number[] = []
  for (let i = 0; i < 20; i++) {
    const t = performance.now()
    await publish(`pages/p${i}`)
    latencies.push(performance.now() - t)
  }
  latencies.sort((a, b) => a - b)
  expect(latencies[latencies.length - 1]!).toBeLessThan(250)
})

test('a scheduled publish by the dispatcher process shows on the api /metrics as outcome="ok" 1', async () => {
  const { ctx, rx, spawn } = await setup()
  const doc = { id: 'pages/sched/draft', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'S', slug: 'sched' } } }
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
  const publishAt = new Date(Date.now() + 300).toISOString()
  expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/sched', publishAt } })).status).toBe(201)
  spawn()
  await waitFor(() => rx.requests.length > 0, 10_000, 'the scheduled publish event')
  const scrape = (await ctx.call('GET', '/metrics', { token: TOKENS.translator })).text
  expect(scrape.split('\n').filter((l) => l.startsWith('service_worker_publish_revisions{'))).toEqual([
    'service_worker_publish_revisions{outcome="ok"} 1',
    'service_worker_publish_revisions{outcome="superseded"} 0',
    'service_worker_publish_revisions{outcome="error"} 0',
  ])
})

test('kill -9 in the middle of the scheduled publishes due at one poll, restart: the rest are published at once (nothing held by a lease), each once, and every event arrives', async () => {
  const { ctx, rx, spawn } = await setup()
  const ids = Array.from({ length: 20 }, (_, i) => `pages/k${String(i).padStart(2, '0')}`)
  const publishAt = new Date(Date.now() + 200).toISOString()
  for (const id of ids) {
    const doc = { id: `${id}/draft`, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: id, slug: id.slice(6) } } }
    expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
    expect((await ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id, publishAt } })).status).toBe(201)
  }
  // Each publish made slow (on SQLite a join of 700 x 700 rows per revision, on PostgreSQL a
  // 100 ms sleep) so the kill lands mid-run.
  const dropSlow = await slowRevisions(ctx.db)
  const versions = () => rows<{ id: string; n: number }>(ctx.db, "SELECT document_id AS id, COUNT(*) AS n FROM revisions WHERE document_id LIKE 'pages/k%' GROUP BY document_id ORDER BY document_id")
  const first = spawn()
  await waitFor(async () => (await versions()).length > 0, 10_000, 'the first scheduled publish')
  first.kill('SIGKILL')
  await first.exited
  expect(await count(ctx.db, 'schedules')).toBeGreaterThan(0)
  await dropSlow()
  const restartedAt = performance.now()
  spawn()
  await waitFor(async () => (await count(ctx.db, 'schedules')) === 0, 10_000, 'the rest published after the restart')
  expect(performance.now() - restartedAt).toBeLessThan(5000)
  expect(await versions()).toEqual(ids.map((id) => ({ id, n: 1 })))
  await waitFor(() => new Set(rx.requests.map((r) => JSON.parse(r.body).documentId)).size === ids.length, 10_000, 'every event')
  expect([...new Set(rx.requests.map((r) => JSON.parse(r.body).documentId))].sort()).toEqual(ids)
})

test('SIGTERM waits for the send in flight and records it before exiting', async () => {
  const { ctx, rx, spawn, publish, attempts } = await setup({ answers: [{ status: 200, delayMs: 700 }], env: { WEBHOOK_TIMEOUT_MS: '5000', DISPATCHER_LEASE_MS: '5500' } })
  const p = spawn()
  await publish('pages/term')
  await waitFor(() => rx.requests.length > 0, 10_000, 'request in flight')
  p.kill('SIGTERM')
  expect(await p.exited).toBe(0)
  expect(await attempts()).toEqual([{ attempt: 1, statusCode: 200, error: null }])
  expect(await rows(ctx.db, 'SELECT status, lease_token AS lease FROM outbox')).toEqual([{ status: 'delivered', lease: null }])
})

sqliteOnly('another connection holds the SQLite write lock; PostgreSQL has no database-wide write lock').test('another process holding the write lock does not stop the dispatcher: answers that come meanwhile are read (and timed) at once, then recorded', async () => {
  const { ctx, rx, spawn, publish } = await setup({ answers: [{ status: 200, delayMs: 300 }], env: { WEBHOOK_TIMEOUT_MS: '5000', DISPATCHER_LEASE_MS: '60000' } })
  const slower = startReceiver([{ status: 200, delayMs: 800 }])
  cleanup.push(() => slower.stop())
  await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'slower', provider: 'custom', target: slower.url } })
  spawn()
  await publish('pages/locked')
  await waitFor(() => rx.requests.length > 0 && slower.requests.length > 0, 10_000, 'both sends in flight')
  // A second process's long write (a large seed, say): the first answer (300 ms) comes while it
  // holds the lock and must wait to be recorded; the second (800 ms) must still be read at once.
  const other = holdWriteLock(ctx.path)
  await Bun.sleep(2000)
  other.release()
  const recorded = () => rows<{ label: string; statusCode: number; durationMs: number }>(ctx.db, 'SELECT w.label, a.status_code AS "statusCode", a.duration_ms AS "durationMs" FROM delivery_attempts a JOIN webhooks w ON w.id = a.webhook_id ORDER BY w.label')
  await waitFor(async () => (await recorded()).length === 2, 10_000, 'both attempts recorded')
  const [fast, slow] = await recorded()
  expect([fast!.label, fast!.statusCode, slow!.label, slow!.statusCode]).toEqual(['e2e', 200, 'slower', 200])
  expect(fast!.durationMs).toBeGreaterThanOrEqual(300)
  expect(fast!.durationMs).toBeLessThan(1000)
  // Blocked on the lock, the process would have read the second answer only after the ROLLBACK (about 2000 ms).
  expect(slow!.durationMs).toBeGreaterThanOrEqual(800)
  expect(slow!.durationMs).toBeLessThan(1500)
  expect(await count(ctx.db, 'outbox', "status = 'delivered' AND lease_token IS NULL")).toBe(2)
})

/** Makes every revision insert slow until the answered function is called. */
async function slowRevisions(db: Db): Promise<() => Promise<void>> {
  if (db.engine === 'sqlite') {
    await run(db, 'CREATE TABLE slow (x INTEGER)')
    await run(db, 'INSERT INTO slow SELECT value FROM json_each(?)', JSON.stringify(Array.from({ length: 700 }, (_, i) => i)))
    await run(db, 'CREATE TRIGGER slow_revision AFTER INSERT ON revisions BEGIN SELECT COUNT(*) FROM slow a, slow b; END')
    return () => run(db, 'DROP TRIGGER slow_revision')
  }
  await run(db, "CREATE FUNCTION slow_revision() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.1); RETURN NEW; END $$")
  await run(db, 'CREATE TRIGGER slow_revision AFTER INSERT ON revisions FOR EACH ROW EXECUTE FUNCTION slow_revision()')
  return () => run(db, 'DROP TRIGGER slow_revision ON revisions')
}
