import { afterAll, expect, test } from 'bun:test'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { collectOutput, createTestContext, logLine, makeTestDir, spawnApi, TEAM, TOKENS, waitFor } from '../helpers'
import { SECOND_SIGNAL_AFTER_MS } from '../../core/signals'
import { onPg, sqliteOnly } from '../dialect'
import { processDatabase, processEnv, type ProcessDatabase } from '../process-db'

const dir = makeTestDir('start-test-')
const stores: ProcessDatabase[] = []
afterAll(async () => {
  for (const store of stores) await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/**
 * Where `bun start` finds a new database: a SQLite file not made yet at `path`, or on the
 * PostgreSQL pass an empty (migrated) database, with `path` where no file may appear.
 */
async function newDatabase(path: string): Promise<Record<string, string>> {
  if (!onPg) return { DATABASE_PATH: path }
  const store = await processDatabase({ seed: null, prefix: 'start-test-' })
  stores.push(store)
  return { ...store.env, DATABASE_PATH: path }
}

test('bun start creates and seeds the database, serves the api, runs the dispatcher, refuses a busy port, and stops both on SIGTERM', async () => {
  const databasePath = join(dir, 'data', 'content.db')
  const service = spawnApi(await newDatabase(databasePath), { argv: ['bun', 'start'] })
  const output = service.stdout
  try {
    // PORT=0: the port the api got is in its `api listening` line (no collision with a busy port).
    const { port } = await service.listening()
    const health = await waitFor(async () => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`)
        return res.ok ? res.json() : null
      } catch {
        return null
      }
    }, 20_000, 'api health')
    expect(health).toEqual({ status: 'ok' })
    expect(existsSync(databasePath)).toBe(!onPg) // on PostgreSQL no SQLite file is made
    // A second service on the same port fails loudly instead of sharing the port (SO_REUSEPORT)
    // and taking half the requests to another database; the first one keeps serving.
    const second = Bun.spawn(['bun', 'start'], {
      cwd: join(import.meta.dir, '../..'),
      env: { ...process.env, PORT: String(port), ...(await newDatabase(join(dir, 'second', 'content.db'))), LOG_LEVEL: 'warn' },
      stdout: 'ignore', stderr: 'pipe',
    })
    expect(await second.exited).not.toBe(0)
    expect(await new Response(second.stderr).text()).toContain(`api: cannot listen on PORT=${port}: the port is in use by another process`)
    const versions = await fetch(`http://127.0.0.1:${port}/content/versions/acme?id=pages/about`, { headers: { authorization: 'Bearer tok-editor' } })
    expect(versions.status).toBe(200)
    expect(((await versions.json()) as { rows: { publishedBy: string }[] }).rows[0]!.publishedBy).toBe('cli')
    await waitFor(() => output.text.includes('"component":"dispatcher"'), 10_000, 'dispatcher log line')
  } finally {
    await service.stop()
  }
  expect(service.proc.exitCode).toBe(0)
  expect(output.text).toContain('api stopping')
  expect(output.text).toContain('dispatcher stopping')
  const seeded = 'seeded the demo team "acme": its tokens are the public ones the README lists, so use this database for trying things out only'
  expect(logLine(output.text, seeded)).toMatchObject({ level: 40, component: 'start' })
  expect(output.text).not.toContain('tok-') // no token in a log line, not even the demo team's public ones
}, 40_000)

sqliteOnly('a relative DATABASE_PATH names the SQLite file').test('started from another directory, the script seeds and serves one database: a relative DATABASE_PATH is read from where it was started', async () => {
  const here = join(dir, 'elsewhere')
  mkdirSync(here, { recursive: true })
  const script = join(import.meta.dir, '../../scripts/start.ts')
  const service = spawnApi({ DATABASE_PATH: 'rel/content.db' }, { argv: ['bun', script], cwd: here })
  try {
    const { port } = await service.listening()
    const versions = await fetch(`http://127.0.0.1:${port}/content/versions/acme?id=pages/about`, { headers: { authorization: 'Bearer tok-editor' } })
    expect(versions.status).toBe(200)
    expect(existsSync(join(here, 'rel', 'content.db'))).toBe(true)
  } finally {
    await service.stop()
  }
}, 40_000)

/** A receiver on 127.0.0.1 that never answers; `requests` are those it got, each left hanging. */
function silentReceiver() {
  const requests: Request[] = []
  const receiver = Bun.serve({
    port: 0, hostname: '127.0.0.1', idleTimeout: 0,
    fetch: (req) => {
      requests.push(req)
      return new Promise<Response>(() => {})
    },
  })
  return { requests, receiver }
}

test('Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops bun start cleanly, waiting for a send in flight; a second Ctrl-C a second later exits at once', async () => {
  // The dispatcher's send stays in flight until WEBHOOK_TIMEOUT_MS.
  const { requests, receiver } = silentReceiver()
  const env = {
    ...process.env, PORT: '0', LOG_LEVEL: 'info', ...(await newDatabase(join(dir, 'ctrl-c', 'content.db'))),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '60000',
  }
  // Its own process group, the one a terminal would signal on Ctrl-C.
  const service = Bun.spawn(['bun', 'start'], { cwd: join(import.meta.dir, '../..'), env, stdout: 'pipe', stderr: 'pipe', detached: true })
  const output = collectOutput(service.stdout)
  const errors = collectOutput(service.stderr)
  const ctrlC = () => process.kill(-service.pid, 'SIGINT')
  try {
    const { port } = await waitFor(() => logLine(output.text, 'api listening'), 20_000, 'api listening') as { port: number }
    const call = (path: string, body: unknown) => fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST', headers: { authorization: 'Bearer tok-editor', 'content-type': 'application/json' }, body: JSON.stringify(body),
    })
    const hook = await call('/teams/acme/webhooks', { label: 'hangs', provider: 'custom', target: `http://127.0.0.1:${receiver.port}/hook` })
    expect(hook.status).toBe(201)
    expect((await call('/content/publish/acme', { ids: ['pages/about'] })).status).toBe(200)
    await waitFor(() => requests.length > 0, 10_000, 'a send in flight')

    ctrlC()
    await waitFor(() => output.text.includes('api stopping') && output.text.includes('dispatcher stopping'), 10_000, 'both stopping')
    // The api has nothing under way and is gone; the dispatcher waits for its answer: the one
    // Ctrl-C reached it two or three times (the terminal's, bun run's copy, start.ts's) and it stopped once.
    await waitFor(async () => {
      try {
        await fetch(`http://127.0.0.1:${port}/health`)
        return false
      } catch {
        return true
      }
    }, 10_000, 'the api gone')
    // A second Ctrl-C is one at least SECOND_SIGNAL_AFTER_MS after the first (core/signals.ts).
    await Bun.sleep(SECOND_SIGNAL_AFTER_MS)
    expect(service.exitCode).toBeNull()
    expect(requests[0]!.signal.aborted).toBe(false)
    expect(output.text).not.toContain('exiting now')

    const secondAt = Date.now()
    ctrlC()
    expect(await service.exited).toBe(1)
    expect(Date.now() - secondAt).toBeLessThan(5000)
    expect(logLine(output.text, 'dispatcher exiting now (a second signal); the sends in flight go out again once their leases expire')).toMatchObject({ level: 40, signal: 'SIGINT', inFlight: 1 })
    // The dispatcher process is gone: its connection to the receiver closed with it.
    await waitFor(() => requests[0]!.signal.aborted, 5000, 'the send cut off')
  } finally {
    if (service.exitCode === null) {
      ctrlC()
      ctrlC()
      await service.exited
    }
    await Promise.all([output.done, errors.done])
    receiver.stop(true)
  }
  // Nothing on stderr but `bun run`'s own lines (the command, and the exit code it passes on).
  expect(errors.text.split('\n').filter((l) => l && !l.startsWith('$ ') && !l.startsWith('error: script "start" exited with code'))).toEqual([])
}, 60_000)

test('the api on its own: SIGTERM (even sent again at once) waits for a request under way (a webhook test send to a silent receiver); a second SIGTERM a second later exits at once', async () => {
  const { requests, receiver } = silentReceiver()
  const ctx = await createTestContext()
  const hook = await ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'silent', provider: 'custom', target: `http://127.0.0.1:${receiver.port}/hook` } })
  expect(hook.status).toBe(201)
  const api = spawnApi({ ...processEnv(ctx), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '60000' })
  try {
    const { port } = await api.listening()
    const send = fetch(`http://127.0.0.1:${port}/teams/${TEAM}/webhooks/${hook.body.id}/test`, {
      method: 'POST', headers: { authorization: `Bearer ${TOKENS.webhooks}`, 'content-type': 'application/json' }, body: '{}',
    }).catch((err: Error) => err)
    await waitFor(() => requests.length > 0, 10_000, 'the test send at the receiver')
    api.proc.kill('SIGTERM')
    await waitFor(() => api.stdout.text.includes('api stopping'), 10_000, 'api stopping')
    // Another one right after, as one Ctrl-C reaches a script run by `bun run` (the terminal's and bun's copy): the same stop.
    api.proc.kill('SIGTERM')
    await Bun.sleep(SECOND_SIGNAL_AFTER_MS)
    expect(api.proc.exitCode).toBeNull() // still waiting for the test send's answer
    expect(api.stdout.text).not.toContain('exiting now')

    const secondAt = Date.now()
    api.proc.kill('SIGTERM')
    expect(await api.proc.exited).toBe(1)
    expect(Date.now() - secondAt).toBeLessThan(5000)
    expect(logLine(api.stdout.text, 'api exiting now, without waiting for the requests under way (a second signal)')).toMatchObject({ level: 40, signal: 'SIGTERM' })
    expect(await send).toBeInstanceOf(Error) // the caller's connection closed with the process
  } finally {
    await api.stop()
    receiver.stop(true)
    await ctx.close()
  }
}, 60_000)
