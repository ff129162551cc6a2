/**
 * End to end: the REAL dispatcher process (`bun dispatcher/main.ts`) on the temp-file database
 * of a `createApp` instance, delivering to real receivers on 127.0.0.1.
 */
import { afterEach, expect, test } from 'bun:test'
import { verify } from '@octokit/webhooks-methods'
import { collectOutput, createTestContext, holdWriteLock, makeTestDir, TEAM, TOKENS, waitFor, type TestContext } from '../helpers'
import { startReceiver, TLS_FIXTURE, type Answer, type TestReceiver } from '../test-receiver'
import { verifySignature } from '../../receiver'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { blockedAddressReason, systemLookup } from '../../core/delivery/ssrf'

const root = new URL('../..', import.meta.url).pathname
const cleanup: (() => void | Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn()
})

type Proc = ReturnType<typeof Bun.spawn>
async function kill(p: Proc, signal: NodeJS.Signals = 'SIGTERM') {
  if (p.exitCode !== null || p.signalCode !== null) return
  p.kill(signal)
  const exited = await Promise.race([p.exited.then(() => true), Bun.sleep(3000).then(() => false)])
  if (!exited) p.kill('SIGKILL')
  await p.exited
}

async function setup(opts: { answers?: Answer[]; env?: Record<string, string>; events?: string[] } = {}) {
  const ctx: TestContext = await createTestContext()
  const rx: TestReceiver = startReceiver(opts.answers)
  cleanup.push(() => ctx.close(), () => rx.stop())
  const res = await ctx.call('POST', `/teams/${TEAM}/webhooks`, {
    token: TOKENS.webhooks, body: { label: 'e2e', provider: 'custom', target: rx.url, events: opts.events ?? ['content.published', 'content.unpublished'] },
  })
  expect(res.status).toBe(201)
  const env = {
    PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', DATABASE_PATH: ctx.path, LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DISPATCHER_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '300', DISPATCHER_LEASE_MS: '1000',
    SITE_CHANGE_QUIET_MS: '300', SITE_CHANGE_MAX_HOLD_MS: '60000', ...opts.env,
  }
  const spawn = (cmd = ['bun', 'dispatcher/main.ts'], cwd = root) => {
    const p = Bun.spawn(cmd, { cwd, env, stdout: 'ignore', stderr: 'inherit' })
    cleanup.push(() => kill(p, 'SIGKILL'))
    return p
  }
  const publish = async (id: string, slug = id.split('/').pop()!) => {
    const doc = { id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: id, slug } } }
    expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
    const res = await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
    expect(res.body[0].status).toBe(0)
  }
  const attempts = () => ctx.db.$client.query('SELECT attempt, status_code AS statusCode, error FROM delivery_attempts ORDER BY id').all()
  return { ctx, rx, secret: res.body.secret as string, hookId: res.body.id as string, spawn, publish, attempts, env }
}

test('exact headers and payload, signature valid for our verifier and @octokit/webhooks-methods', async () => {
  const { rx, secret, spawn, publish } = await setup()
  spawn()
  await publish('pages/about', 'about')
  await waitFor(() => rx.requests.length > 0, 10_000, 'delivery')
  const [req] = rx.requests
  const body = JSON.parse(req!.body)
  const pick = (h: Record<string, string>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, h[k]]))
  expect(pick(req!.headers, ['content-type', 'user-agent', 'x-service-event', 'x-service-delivery'])).toEqual({
    'content-type': 'application/json; charset=utf-8', 'user-agent': 'Service-Webhooks/1.0',
    'x-service-event': 'content.published', 'x-service-delivery': body.eventId,
  })
  expect(req!.method).toBe('POST')
  expect(req!.path).toBe('/hook')
  expect(verifySignature(req!.body, req!.headers['x-service-signature'], secret)).toBe(true)
  expect(await verify(secret, req!.body, req!.headers['x-service-signature']!)).toBe(true)
  expect(body).toEqual({
    v: 2, eventType: 'content.published', eventId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    occurredAt: expect.stringMatching(/Z$/), teamId: TEAM, workspaceId: 'main', userId: 'u-editor', documentId: 'pages/about',
    collection: 'pages', locales: ['en'], status: 'published', url: '/about', urls: { en: '/about' }, previousUrls: [], scope: 'document',
  })
})

test('500 then 200: delivered on attempt 2 with the same eventId; 404 is final after one attempt', async () => {
  const { rx, spawn, publish, attempts } = await setup({ answers: [{ status: 500 }, { status: 200 }, { status: 404 }] })
  spawn()
  await publish('pages/a')
  await waitFor(() => rx.requests.length >= 2, 10_000, 'second attempt')
  const [first, second] = rx.requests
  expect(second!.headers['x-service-delivery']).toBe(first!.headers['x-service-delivery'])
  expect(second!.body).toBe(first!.body)
  expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000)
  await publish('pages/b')
  await waitFor(() => rx.requests.length >= 3, 10_000, '404 attempt')
  await Bun.sleep(2500) // a retry would come within 1-2 s
  expect(rx.requests).toHaveLength(3)
  expect(attempts()).toEqual([
    { attempt: 1, statusCode: 500, error: null }, { attempt: 2, statusCode: 200, error: null }, { attempt: 1, statusCode: 404, error: null },
  ])
})

test('the process logs each delivery, at debug level too, and never the secret or the signature', async () => {
  const { rx, secret, hookId, publish, env } = await setup({ answers: [{ status: 500 }, { status: 200 }] })
  const p = Bun.spawn(['bun', 'dispatcher/main.ts'], { cwd: root, env: { ...env, LOG_LEVEL: 'debug' }, stdout: 'pipe', stderr: 'pipe' })
  cleanup.push(() => kill(p, 'SIGKILL'))
  const out = collectOutput(p.stdout)
  const err = collectOutput(p.stderr)
  await publish('pages/logged')
  await waitFor(() => rx.requests.length >= 2, 10_000, 'the retry')
  await waitFor(() => out.text.includes('"webhook delivered"'), 5000, 'the delivered line')
  await kill(p)
  const signature = rx.requests[0]!.headers['x-service-signature']!
  const text = out.text + err.text
  // The lines are there (a retry warned, the delivery told), with the ids that find them.
  expect(text).toContain('"webhook attempt failed, will retry"')
  expect(text).toContain(`"webhookId":"${hookId}"`)
  for (const hidden of [secret, signature, signature.slice('sha256='.length)]) expect(text).not.toContain(hidden)
})

test('a receiver slower than WEBHOOK_TIMEOUT_MS is retried', async () => {
  const { rx, spawn, publish, attempts } = await setup({ answers: [{ status: 200, delayMs: 1000 }, { status: 200 }] })
  spawn()
  await publish('pages/slow')
  await waitFor(() => rx.requests.length >= 2 && (attempts() as unknown[]).length >= 2, 10_000, 'retry after timeout')
  expect(attempts()).toEqual([{ attempt: 1, statusCode: null, error: 'timeout after 300 ms' }, { attempt: 2, statusCode: 200, error: null }])
})

test('kill -9 mid-burst, restart: every event arrives', async () => {
  const { ctx, rx, spawn, publish } = await setup({ answers: [{ status: 200, delayMs: 150 }] })
  const ids = Array.from({ length: 30 }, (_, i) => `pages/burst-${i}`)
  for (const id of ids) await publish(id)
  const first = spawn()
  await waitFor(() => rx.requests.length > 0, 10_000, 'first delivery')
  first.kill('SIGKILL')
  await first.exited
  const delivered = ctx.db.$client.query("SELECT COUNT(*) AS n FROM outbox WHERE status = 'delivered'").get() as { n: number }
  expect(delivered.n).toBeLessThan(ids.length) // it really died mid-burst
  // The attempts in flight at the kill: they reached the receiver (which answers after 150 ms) but
  // their rows are not delivered. Each must be sent again after the restart, same delivery id.
  const recorded = new Set((ctx.db.$client.query("SELECT event_id AS eventId FROM outbox WHERE status = 'delivered'").all() as { eventId: string }[]).map((r) => r.eventId))
  const inFlight = [...new Set(rx.requests.map((r) => r.headers['x-service-delivery']!))].filter((id) => !recorded.has(id))
  expect(inFlight.length).toBeGreaterThan(0)
  const seen = rx.requests.length
  spawn()
  const docs = () => new Set(rx.requests.map((r) => JSON.parse(r.body).documentId))
  const notResent = () => {
    const resent = new Set(rx.requests.slice(seen).map((r) => r.headers['x-service-delivery']))
    return inFlight.filter((id) => !resent.has(id))
  }
  // Their leases (DISPATCHER_LEASE_MS, 1 s here) expire, then they are claimed again.
  await waitFor(() => ids.every((id) => docs().has(id)) && notResent().length === 0, 20_000, 'every event, the ones in flight again')
  expect([...docs()].filter((d) => d.startsWith('pages/burst-')).sort()).toEqual([...ids].sort())
  expect(notResent()).toEqual([])
})

test('a burst of site changes yields one site.changed', async () => {
  const { ctx, rx, spawn } = await setup({ events: ['site.changed'] })
  spawn()
  for (const [path, body] of [
    ['/locales', { locales: ['en', 'de'], defaultLocale: 'en' }],
    ['/localization', { fallbacks: { de: 'en' } }],
    ['/content-index', { fields: ['title'] }],
    ['/locales', { locales: ['en', 'de', 'fr'], defaultLocale: 'en' }],
  ] as const) expect((await ctx.call('PUT', `/teams/${TEAM}${path}`, { body })).status).toBe(200)
  await waitFor(() => rx.requests.length > 0, 10_000, 'site.changed')
  await Bun.sleep(800)
  expect(rx.requests.map((r) => JSON.parse(r.body)).map(({ eventType, status, scope, documentId }) => ({ eventType, status, scope, documentId }))).toEqual([
    { eventType: 'site.changed', status: 'locales', scope: 'site', documentId: null },
  ])
})

test('site.changed is never held longer than the max hold, however often things change', async () => {
  const { ctx, rx, spawn } = await setup({ events: ['site.changed'], env: { SITE_CHANGE_QUIET_MS: '1000', SITE_CHANGE_MAX_HOLD_MS: '1500' } })
  spawn()
  const t0 = Date.now()
  let n = 0
  while (rx.requests.length === 0 && Date.now() - t0 < 8000) {
    await ctx.call('PUT', `/teams/${TEAM}/localization`, { body: { fallbacks: n++ % 2 ? { de: 'en' } : { fr: 'en' } } })
    await Bun.sleep(100) // always inside the quiet period
  }
  expect(rx.requests).toHaveLength(1)
  expect(rx.requests[0]!.at - t0).toBeGreaterThanOrEqual(1500)
  expect(rx.requests[0]!.at - t0).toBeLessThan(3000)
})

test('SSRF: a target resolving to 127.0.0.1 is refused at send time when private targets are not allowed', async () => {
  const { ctx, rx, hookId, spawn, publish, attempts } = await setup({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } })
  // Saved while the api allowed it (as a DNS change would do later): the send-time check must catch it.
  ctx.db.$client.query('UPDATE webhooks SET target = ? WHERE id = ?').run(`https://127.0.0.1:${rx.port}/hook`, hookId)
  spawn()
  await publish('pages/ssrf')
  await waitFor(() => (attempts() as unknown[]).length > 0, 10_000, 'refused attempt')
  await Bun.sleep(1500)
  expect(attempts()).toEqual([{ attempt: 1, statusCode: null, error: expect.stringMatching(/^refused: .*public address \(loopback; a receiver there needs WEBHOOK_ALLOW_PRIVATE_TARGETS=true\)/) }])
  expect(ctx.db.$client.query('SELECT status FROM outbox').all()).toEqual([{ status: 'failed' }])
  expect(rx.requests).toHaveLength(0)
})

test('SSRF: a host NAME resolving to a private address is refused after the DNS lookup', async () => {
  const addresses = await systemLookup(hostname()).catch(() => [] as string[])
  if (addresses.length === 0 || addresses.some((a) => !blockedAddressReason(a))) return // needs a host name that resolves privately
  const { ctx, rx, hookId, spawn, publish, attempts } = await setup({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } })
  ctx.db.$client.query('UPDATE webhooks SET target = ? WHERE id = ?').run(`https://${hostname()}:${rx.port}/hook`, hookId)
  spawn()
  await publish('pages/ssrf-dns')
  await waitFor(() => (attempts() as unknown[]).length > 0, 10_000, 'refused attempt')
  // The log tells no more than a name that does not resolve would (docs/security.md); the log line says why.
  expect(attempts()).toEqual([{ attempt: 1, statusCode: null, error: 'target is not a reachable public address' }])
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
  const byHook = (id: string) => ctx.db.$client.query('SELECT attempt, status_code AS statusCode, error FROM delivery_attempts WHERE webhook_id = ? ORDER BY id').all(id)
  // Answers are recorded in batches: the receiver can have the request before its attempt row exists.
  await waitFor(() => byHook(good.body.id).length > 0 && byHook(wrongName.body.id).length > 0, 10_000, 'both TLS attempts recorded')
  expect(byHook(good.body.id)).toEqual([{ attempt: 1, statusCode: 200, error: null }])
  expect(byHook(wrongName.body.id)[0]).toEqual({ attempt: 1, statusCode: null, error: expect.stringMatching(/^network error: .*(ALTNAME|CERT)/) })
  expect(tls.requests).toHaveLength(1)
  expect((attempts() as unknown[]).length).toBeGreaterThanOrEqual(3) // plus the plain-http webhook of setup()
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
  // Each publish made slow (a join of 700 x 700 rows per revision) so the kill lands mid-run.
  ctx.db.$client.run('CREATE TABLE slow (x INTEGER)')
  ctx.db.$client.run('INSERT INTO slow SELECT value FROM json_each(?)', [JSON.stringify(Array.from({ length: 700 }, (_, i) => i))])
  ctx.db.$client.run('CREATE TRIGGER slow_revision AFTER INSERT ON revisions BEGIN SELECT COUNT(*) FROM slow a, slow b; END')
  const versions = () => ctx.db.$client.query("SELECT document_id AS id, COUNT(*) AS n FROM revisions WHERE document_id LIKE 'pages/k%' GROUP BY document_id").all() as { id: string; n: number }[]
  const first = spawn()
  await waitFor(() => versions().length > 0, 10_000, 'the first scheduled publish')
  first.kill('SIGKILL')
  await first.exited
  const left = (ctx.db.$client.query('SELECT COUNT(*) AS n FROM schedules').get() as { n: number }).n
  expect(left).toBeGreaterThan(0)
  ctx.db.$client.run('DROP TRIGGER slow_revision')
  const restartedAt = performance.now()
  spawn()
  await waitFor(() => (ctx.db.$client.query('SELECT COUNT(*) AS n FROM schedules').get() as { n: number }).n === 0, 10_000, 'the rest published after the restart')
  expect(performance.now() - restartedAt).toBeLessThan(5000)
  expect(versions()).toEqual(ids.map((id) => ({ id, n: 1 })))
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
  expect(attempts()).toEqual([{ attempt: 1, statusCode: 200, error: null }])
  expect(ctx.db.$client.query('SELECT status, lease_token AS lease FROM outbox').all()).toEqual([{ status: 'delivered', lease: null }])
})

test('another process holding the write lock does not stop the dispatcher: answers that come meanwhile are read (and timed) at once, then recorded', async () => {
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
  const rows = () => ctx.db.$client.query('SELECT w.label, a.status_code AS statusCode, a.duration_ms AS durationMs FROM delivery_attempts a JOIN webhooks w ON w.id = a.webhook_id ORDER BY w.label').all() as { label: string; statusCode: number; durationMs: number }[]
  await waitFor(() => rows().length === 2, 10_000, 'both attempts recorded')
  const [fast, slow] = rows()
  expect([fast!.label, fast!.statusCode, slow!.label, slow!.statusCode]).toEqual(['e2e', 200, 'slower', 200])
  expect(fast!.durationMs).toBeGreaterThanOrEqual(300)
  expect(fast!.durationMs).toBeLessThan(1000)
  // Blocked on the lock, the process would have read the second answer only after the ROLLBACK (about 2000 ms).
  expect(slow!.durationMs).toBeGreaterThanOrEqual(800)
  expect(slow!.durationMs).toBeLessThan(1500)
  expect(ctx.db.$client.query("SELECT COUNT(*) AS n FROM outbox WHERE status = 'delivered' AND lease_token IS NULL").get()).toEqual({ n: 2 })
})

test('the compiled binary (package.json "build:dispatcher") delivers, reads no .env or bunfig.toml from its working directory, stops cleanly while it waits for the migration, and its worker checkpoints the WAL', async () => {
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
  const waiting = Bun.spawn([outfile], {
    cwd: work, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', DATABASE_PATH: join(dir, 'fresh.db'), LOG_LEVEL: 'info' },
    stdout: 'pipe', stderr: 'inherit',
  })
  cleanup.push(() => kill(waiting, 'SIGKILL'))
  const output = collectOutput(waiting.stdout)
  await waitFor(() => output.text.includes('waiting for the api to migrate'), 10_000, 'the binary waits for the migration')
  waiting.kill('SIGTERM')
  expect(await waiting.exited).toBe(0)
  await output.done
  expect(output.text).toContain('"msg":"dispatcher stopping"')
  // The file it created for the api to migrate is its user's alone (test/e2e/file-modes.test.ts).
  expect((statSync(join(dir, 'fresh.db')).mode & 0o777).toString(8)).toBe('600')

  // Only the worker copies the WAL back now: the api connection's automatic checkpoints are off.
  ctx.db.$client.exec('PRAGMA wal_autocheckpoint = 0')
  const fileSize = () => statSync(ctx.path).size
  await Bun.sleep(1200) // one checkpoint interval: the file holds everything written so far
  const before = fileSize()
  ctx.db.$client.exec('CREATE TABLE filler (b BLOB)')
  for (let i = 0; i < 200; i++) ctx.db.$client.query('INSERT INTO filler (b) VALUES (randomblob(4000))').run()
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
  await waitFor(() => (attempts() as unknown[]).length === 3, 5000, 'the third attempt recorded')
  await Bun.sleep(3500) // a fourth would come within 3 s
  expect(rx.requests).toHaveLength(3)
  expect(attempts()).toEqual([
    { attempt: 1, statusCode: 503, error: null }, { attempt: 2, statusCode: 502, error: null }, { attempt: 3, statusCode: 500, error: null },
  ])
  expect(ctx.db.$client.query('SELECT status, lease_token AS lease FROM outbox').all()).toEqual([{ status: 'failed', lease: null }])
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
  const rows = () => ctx.db.$client.query('SELECT status, lease_token AS lease FROM outbox ORDER BY seq').all() as { status: string; lease: string | null }[]
  expect(rows().filter((r) => r.lease !== null)).toEqual([]) // the one in flight recorded, the rest handed back
  const delivered = rows().filter((r) => r.status === 'delivered').length
  expect(delivered).toBe(rx.requests.length)
  expect(delivered).toBeLessThan(ids.length)
  const t0 = Date.now()
  spawn()
  await waitFor(() => rows().every((r) => r.status === 'delivered'), 15_000, 'the rest after the restart')
  expect(Date.now() - t0).toBeLessThan(10_000) // not after the 60 s lease
  expect(rx.requests.map((r) => JSON.parse(r.body).documentId).sort()).toEqual([...ids].sort())
})

test('providers through the process: netlify and vercel build hooks get an empty signed body, github a repository_dispatch with its token', async () => {
  const { ctx, spawn, publish } = await setup()
  /** A webhook of `provider` and its own receiver (the target, unless one is given). */
  const make = async (provider: string, extra: { target?: string; options?: object } = {}) => {
    const rx = startReceiver()
    cleanup.push(() => rx.stop())
    const res = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: provider, provider, target: rx.url, ...extra } })
    expect(res.status).toBe(201)
    return { rx, secret: res.body.secret as string, id: res.body.id as string }
  }
  const netlify = await make('netlify')
  const vercel = await make('vercel')
  // A github webhook must target api.github.com; pointed at the local receiver afterwards, as the
  // SSRF tests do, so the request the process builds and sends can be read.
  const github = await make('github', { target: 'https://api.github.com/repos/acme/site/dispatches', options: { token: 'ghp_e2eToken123', eventType: 'cms-publish' } })
  ctx.db.$client.query('UPDATE webhooks SET target = ? WHERE id = ?').run(github.rx.url, github.id)
  spawn()
  await publish('pages/providers', 'providers')
  await waitFor(() => [netlify, vercel, github].every((h) => h.rx.requests.length > 0), 10_000, 'a request at each provider')
  const eventId = (ctx.db.$client.query("SELECT event_id AS id FROM outbox o JOIN webhooks w ON w.id = o.webhook_id WHERE w.provider = 'netlify'").get() as { id: string }).id
  for (const h of [netlify, vercel, github]) {
    const [req] = h.rx.requests
    expect(h.rx.requests).toHaveLength(1)
    expect(req!.method).toBe('POST')
    expect(verifySignature(req!.body, req!.headers['x-service-signature'], h.secret)).toBe(true)
    expect(req!.headers['x-service-delivery']).toBe(eventId) // one event, the same id at every webhook
    expect(req!.headers['x-service-event']).toBe('content.published')
    expect(req!.headers['user-agent']).toBe('Service-Webhooks/1.0')
  }
  expect(netlify.rx.requests[0]!.path).toBe('/hook?trigger_title=content.published+pages%2Fproviders')
  expect(netlify.rx.requests[0]!.body).toBe('{}')
  expect(vercel.rx.requests[0]!.path).toBe('/hook')
  expect(vercel.rx.requests[0]!.body).toBe('{}')
  const gh = github.rx.requests[0]!
  expect([gh.headers.authorization, gh.headers.accept, gh.headers['x-github-api-version']]).toEqual(['Bearer ghp_e2eToken123', 'application/vnd.github+json', '2022-11-28'])
  expect(JSON.parse(gh.body)).toEqual({
    event_type: 'cms-publish',
    client_payload: {
      v: 2, eventType: 'content.published', eventId, teamId: TEAM, documentId: 'pages/providers', status: 'published',
      url: '/providers', urls: { en: '/providers' }, previousUrls: [], scope: 'document',
    },
  })
})

test('a row claimed ahead goes out as its webhook is when it is sent: after a PATCH of target and secret nothing more reaches the old target, after a DELETE nothing more at all (beyond the sends on the wire)', async () => {
  // Room to claim ahead (lease - timeout - 2 s >= 3 s): 2 sends in flight, 8 more claimed per webhook.
  const slow: Answer[] = [{ status: 200, delayMs: 150 }]
  const { ctx, rx, hookId, spawn, publish } = await setup({ answers: slow, env: { DISPATCHER_PER_WEBHOOK: '2', WEBHOOK_TIMEOUT_MS: '2000', DISPATCHER_LEASE_MS: '10000' } })
  const moved = startReceiver(slow)
  cleanup.push(() => moved.stop())
  spawn()
  await publish('pages/warm') // answered fast: this webhook's rows are claimed ahead from now on
  await waitFor(() => rx.requests.length === 1, 10_000, 'warm-up delivery')
  const burst = async (n: number) => {
    for (let i = 0; i < n; i++) await ctx.call('POST', `/content/${TEAM}`, { body: { id: `pages/b${i}`, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'B', slug: `b${i}` } } } })
    const res = await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: Array.from({ length: n }, (_, i) => `pages/b${i}`) } })
    expect(res.body.every((item: { status: number }) => item.status === 0)).toBe(true)
  }
  await burst(30)
  await waitFor(() => rx.requests.length >= 4, 10_000, 'the burst under way')
  const newSecret = 'a-new-secret-of-at-least-thirty-two-characters'
  const patched = await ctx.call('PATCH', `/teams/${TEAM}/webhooks/${hookId}`, { token: TOKENS.webhooks, body: { target: moved.url, secret: newSecret } })
  expect(patched.status).toBe(200)
  const oldAtPatch = rx.requests.length
  await waitFor(() => rx.requests.length - 1 + moved.requests.length >= 30, 20_000, 'the burst delivered')
  // Only sends already on the wire (2) may still reach the old target.
  expect(rx.requests.length - oldAtPatch).toBeLessThanOrEqual(2)
  expect(moved.requests.length).toBeGreaterThanOrEqual(20)
  for (const r of moved.requests) expect(verifySignature(r.body, r.headers['x-service-signature'], newSecret)).toBe(true)

  await burst(30) // republished: 30 more events
  await waitFor(() => moved.requests.length >= 34, 10_000, 'the second burst under way')
  expect((await ctx.call('DELETE', `/teams/${TEAM}/webhooks/${hookId}`, { token: TOKENS.webhooks })).status).toBe(204)
  const atDelete = moved.requests.length
  await Bun.sleep(1500)
  expect(moved.requests.length - atDelete).toBeLessThanOrEqual(2)
}, 60_000)
