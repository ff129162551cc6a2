import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { networkInterfaces } from 'node:os'
import { openDb } from '../../db/client'
import { holdWriteLock, makeTestDir, spawnApi, waitFor } from '../helpers'

const root = join(import.meta.dir, '../..')
const dir = makeTestDir('startup-test-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs `entry` to its exit (it must exit on its own), with `env` over a clean test environment. */
async function run(argv: string[], env: Record<string, string>) {
  const proc = Bun.spawn(['bun', ...argv], { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const code = await proc.exited
  return { code, stderr: await new Response(proc.stderr).text(), stdout: await new Response(proc.stdout).text() }
}

test('a setting that cannot be used stops each process at startup: one line naming it, exit 78', async () => {
  const databasePath = join(dir, 'config', 'content.db')
  const cases: [string[], Record<string, string>, string][] = [
    [['api/main.ts'], { PORT: 'abc' }, 'api: configuration error: PORT must be a whole number from 0 to 65535; got "abc".'],
    [['api/main.ts'], { LOG_LEVEL: 'verbose' }, 'api: configuration error: LOG_LEVEL must be one of'],
    [['dispatcher/main.ts'], { DISPATCHER_LEASE_MS: '-1' }, 'dispatcher: configuration error: DISPATCHER_LEASE_MS must be a whole number'],
    [['dispatcher/main.ts'], { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' }, 'dispatcher: configuration error: WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false'],
    [['cli/main.ts', 'push-index', 'x.json'], { MAX_BODY_BYTES: '-1' }, 'cli: configuration error: MAX_BODY_BYTES must be'],
    [['scripts/start.ts'], { PORT: '-1' }, 'start: configuration error: PORT must be'],
    [['api/main.ts'], { HOST: 'http://127.0.0.1:80' }, 'api: configuration error: HOST must be an address or a host name'],
    [['dispatcher/main.ts'], { NODE_EXTRA_CA_CERTS: join(dir, 'no-such-ca.pem') }, 'dispatcher: configuration error: NODE_EXTRA_CA_CERTS must be a readable PEM file'],
    [['api/main.ts'], { NODE_EXTRA_CA_CERTS: join(root, 'package.json') }, 'api: configuration error: NODE_EXTRA_CA_CERTS must be a PEM file of CA certificates'],
  ]
  const results = await Promise.all(cases.map(([argv, env]) => run(argv, { DATABASE_PATH: databasePath, ...env })))
  for (const [i, [argv, , message]] of cases.entries()) {
    const { code, stderr } = results[i]!
    expect({ argv, code, line: stderr.trim() }).toEqual({ argv, code: 78, line: expect.stringContaining(message) })
    expect(stderr.trim().split('\n')).toHaveLength(1)
  }
}, 30_000)

test('a database that cannot be used stops the process at startup, naming DATABASE_PATH', async () => {
  const notSqlite = join(dir, 'not-sqlite.db')
  writeFileSync(notSqlite, 'this is not a database, just text that is long enough to be read as a header '.repeat(20))
  const directory = join(dir, 'a-directory')
  mkdirSync(directory)
  for (const path of [notSqlite, directory]) {
    const { code, stderr } = await run(['api/main.ts'], { DATABASE_PATH: path, PORT: '0' })
    expect({ path, code, named: stderr.includes(`api: cannot use the database at DATABASE_PATH=${JSON.stringify(path)}`) }).toEqual({ path, code: 1, named: true })
    if (path === directory) expect(stderr.trim()).toEndWith('it is a directory; name a file in it, e.g. DATABASE_PATH=' + JSON.stringify(join(directory, 'content.db')) + '.')
  }
}, 30_000)

test('a write lock another process holds past the busy timeout at startup is waited for, said on stderr, not an exit', async () => {
  const path = join(dir, 'locked', 'content.db')
  openDb(path).$client.close() // migrated: what waits is the write probe, as for a restart during a large seed
  const holder = holdWriteLock(path)
  const api = spawnApi({ DATABASE_PATH: path })
  try {
    // The api's busy timeout is 10 s: past it, before this fix, the api exited 1 ("cannot use the database").
    await waitFor(() => api.stderr.text.includes('is locked by another process'), 20_000, 'the waiting line')
    expect(api.stderr.text.trim()).toBe(`api: the database at DATABASE_PATH=${JSON.stringify(path)} is locked by another process's write (a large seed or import?); waiting for it`)
    expect(api.proc.exitCode).toBeNull()
    holder.release()
    const { port } = await api.listening()
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200)
  } finally {
    holder.release()
    await api.stop()
  }
  expect(api.proc.exitCode).toBe(0)
}, 60_000)

test('a port in use stops the api with one line naming PORT (not a stack trace), exit 1', async () => {
  const taken = Bun.serve({ port: 0, hostname: '0.0.0.0', fetch: () => new Response('taken') })
  try {
    const { code, stderr } = await run(['api/main.ts'], { DATABASE_PATH: join(dir, 'busy-port', 'content.db'), PORT: String(taken.port) })
    expect({ code, lines: stderr.trim().split('\n') }).toEqual({
      code: 1, lines: [`api: cannot listen on PORT=${taken.port}: the port is in use by another process; stop it or set PORT to a free port`],
    })
  } finally {
    taken.stop(true)
  }
}, 30_000)

test('the api alone never seeds the demo team (its tokens are public): it warns and answers 401 until a seed', async () => {
  const databasePath = join(dir, 'alone', 'content.db')
  const api = spawnApi({ DATABASE_PATH: databasePath })
  try {
    const { port } = await api.listening()
    expect((await fetch(`http://127.0.0.1:${port}/health`)).ok).toBe(true)
    const res = await fetch(`http://127.0.0.1:${port}/content/versions/acme?id=pages/about`, { headers: { authorization: 'Bearer tok-editor' } })
    expect(res.status).toBe(401)
    expect(api.stdout.text).toContain('the database holds no team yet')
    expect(api.stdout.text).not.toContain('seeded')
  } finally {
    await api.stop()
  }
  expect(api.proc.exitCode).toBe(0)
}, 30_000)

// Root writes any file whatever its mode, so this runs where the test can become another user.
const runuser = Bun.which('runuser')
test.skipIf(process.getuid?.() !== 0 || !runuser)('a database file this user may only read stops the api at startup instead of a health check saying ok', async () => {
  const roDir = join(dir, 'readonly')
  mkdirSync(roDir)
  const path = join(roDir, 'content.db')
  expect((await run(['-e', `import { openDb } from './db/client'; openDb(${JSON.stringify(path)}).$client.close()`], {})).code).toBe(0)
  // The file is read-only; its directory is not (so SQLite may create its -wal and -shm files there).
  Bun.spawnSync(['chmod', 'a-w', path])
  Bun.spawnSync(['chmod', 'a+rwx', roDir])
  Bun.spawnSync(['chmod', 'a+rx', dir])
  const proc = Bun.spawn([runuser!, '-u', 'nobody', '--', process.execPath, 'api/main.ts'], {
    cwd: root, env: { ...process.env, PORT: '0', DATABASE_PATH: path, LOG_LEVEL: 'warn', HOME: '/tmp' }, stdout: 'pipe', stderr: 'pipe',
  })
  // An api that started anyway would listen until killed: that is the failure.
  const code = await Promise.race([proc.exited, Bun.sleep(10_000).then(() => 'still running')])
  proc.kill('SIGTERM') // runuser passes it on to the api
  await proc.exited
  const stderr = await new Response(proc.stderr).text()
  expect({ code, named: stderr.includes('api: cannot use the database at DATABASE_PATH=') && /readonly|read-only/i.test(stderr) }).toEqual({ code: 1, named: true })
}, 30_000)

/**
 * The settings of a systemd unit in deploy/: `key=value` lines (the last one wins, as systemd
 * reads them), and apart from them the variables of its many `Environment=NAME=value` lines.
 */
async function unit(name: string): Promise<{ settings: Record<string, string>; env: Record<string, string> }> {
  const text = await Bun.file(join(root, 'deploy', name)).text()
  const pairs = (lines: string[]) => Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  const lines = text.split('\n').filter((l) => /^[A-Za-z]+=/.test(l))
  return { settings: pairs(lines), env: pairs(lines.filter((l) => l.startsWith('Environment=')).map((l) => l.slice('Environment='.length))) }
}

test('the api as its systemd unit runs it reads no .env from its working directory; PORT=0 logs the port it got', async () => {
  const apiUnit = await unit('content-api.service')
  // ExecStart=/usr/local/bin/bun <flags> api/main.ts, run here with this Bun, from a directory holding a .env.
  const [, ...args] = apiUnit.settings.ExecStart!.split(' ')
  const work = join(dir, 'unit-work')
  mkdirSync(work)
  writeFileSync(join(work, '.env'), 'MAX_BODY_BYTES=not-a-number\n')
  const argv = args.map((a) => (a.endsWith('.ts') ? join(root, a) : a))
  const api = spawnApi({ DATABASE_PATH: join(dir, 'unit', 'content.db') }, {
    argv: [process.execPath, ...argv], cwd: work, baseEnv: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp' },
  })
  try {
    const listening = await api.listening()
    expect(listening.port).toBeGreaterThan(0)
    expect((await fetch(`http://127.0.0.1:${listening.port}/health`)).status).toBe(200)
  } finally {
    await api.stop()
  }
  expect({ code: api.proc.exitCode, stderr: api.stderr.text }).toEqual({ code: 0, stderr: '' })
}, 30_000)

test('each systemd unit waits longer for a stop than a webhook send may take (WEBHOOK_TIMEOUT_MS, 30 s by default)', async () => {
  // The api's test endpoint sends synchronously, the dispatcher finishes its sends in flight:
  // a unit that kills sooner cuts them off (a test answer lost, a send made twice).
  for (const name of ['content-api.service', 'content-dispatcher.service']) {
    const { settings, env } = await unit(name)
    const timeoutMs = Number(env.WEBHOOK_TIMEOUT_MS ?? 30_000)
    expect({ name, stopsAfterSend: Number(settings.TimeoutStopSec) * 1000 > timeoutMs }).toEqual({ name, stopsAfterSend: true })
  }
})

test('HOST=127.0.0.1 keeps the api off every other address (behind a reverse proxy)', async () => {
  const api = spawnApi({ HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'host', 'content.db') })
  try {
    const listening = await api.listening()
    expect({ host: listening.host, health: (await fetch(`http://127.0.0.1:${listening.port}/health`)).status }).toEqual({ host: '127.0.0.1', health: 200 })
    // Another address of this machine: always 127.0.0.2 (Linux routes all of 127/8 to loopback, and a
    // listener on every address answers there), and a network interface's where there is one.
    const other = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)
    for (const address of ['127.0.0.2', ...(other ? [other.address] : [])]) {
      const reached = await fetch(`http://${address}:${listening.port}/health`).then(() => true, () => false)
      expect({ address, reached }).toEqual({ address, reached: false })
    }
  } finally {
    await api.stop()
  }
  expect(api.proc.exitCode).toBe(0)
}, 30_000)
