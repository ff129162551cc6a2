import { afterAll, expect, test } from 'bun:test'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { logLine, makeTestDir, spawnApi, waitFor } from '../helpers'

const dir = makeTestDir('start-test-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('bun start creates and seeds the database, serves the api, runs the dispatcher, refuses a busy port, and stops both on SIGTERM', async () => {
  const databasePath = join(dir, 'data', 'content.db')
  const service = spawnApi({ DATABASE_PATH: databasePath }, { argv: ['bun', 'start'] })
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
    expect(existsSync(databasePath)).toBe(true)
    // A second service on the same port fails loudly instead of sharing the port (SO_REUSEPORT)
    // and taking half the requests to another database; the first one keeps serving.
    const second = Bun.spawn(['bun', 'start'], {
      cwd: join(import.meta.dir, '../..'),
      env: { ...process.env, PORT: String(port), DATABASE_PATH: join(dir, 'second', 'content.db'), LOG_LEVEL: 'warn' },
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

test('started from another directory, the script seeds and serves one database: a relative DATABASE_PATH is read from where it was started', async () => {
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
