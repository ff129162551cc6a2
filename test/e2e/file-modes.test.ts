/**
 * The database holds webhook secrets and provider tokens in clear: every file of it is created
 * 0600 whatever the umask, and the processes warn at startup when the directory or a file made
 * earlier lets other users read it (docs/security.md "Files on disk").
 */
import { afterAll, expect, test } from 'bun:test'
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { collectOutput, makeTestDir, spawnApi, waitFor } from '../helpers'

const dir = makeTestDir('file-modes-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const root = join(import.meta.dir, '../..')

const WARNING = 'other users of this machine can read the database files or list their directory (they hold webhook secrets): chmod 600 the files, chmod o-rwx the directory'
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8)
const warnings = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.msg === WARNING)

test.each(['000', '022'])('under umask %s, in an existing 0755 directory, the api creates the database, -wal, -shm and .migrate-lock 0600, and warns once about the directory', async (umask) => {
  const where = join(dir, `open-${umask}`)
  mkdirSync(where, { mode: 0o755 })
  chmodSync(where, 0o755)
  const path = join(where, 'content.db')
  const api = spawnApi({ DATABASE_PATH: path }, { argv: ['sh', '-c', `umask ${umask} && exec bun api/main.ts`] })
  try {
    await api.listening()
    const files = [path, `${path}-wal`, `${path}-shm`, `${path}.migrate-lock`]
    expect(files.map((f) => [f, mode(f)])).toEqual(files.map((f) => [f, '600']))
    expect(warnings(api.stdout.text)).toEqual([
      expect.objectContaining({ level: 40, component: 'api', databasePath: path, readableByOthers: [{ path: where, mode: '0755' }] }),
    ])
  } finally {
    await api.stop()
  }
}, 30_000)

test('a database file made earlier with 0644 is named in the warning, by the api and by the dispatcher; a 0750 directory with 0600 files gets none', async () => {
  const where = join(dir, 'old')
  mkdirSync(where, { mode: 0o700 })
  const path = join(where, 'content.db')
  // As an older version (or sqlite3 at the shell) left it: SQLite's own 0644.
  new Database(path, { create: true }).close()
  chmodSync(path, 0o644)
  const api = spawnApi({ DATABASE_PATH: path })
  try {
    await api.listening()
    // The -wal and -shm SQLite made beside it took its mode: named too.
    const old = [path, `${path}-wal`, `${path}-shm`].map((p) => ({ path: p, mode: '0644' }))
    expect(warnings(api.stdout.text)).toEqual([expect.objectContaining({ component: 'api', databasePath: path, readableByOthers: old })])
    const dispatcher = Bun.spawn(['bun', 'dispatcher/main.ts'], { cwd: root, env: { ...process.env, DATABASE_PATH: path, LOG_LEVEL: 'info' }, stdout: 'pipe', stderr: 'inherit' })
    const out = collectOutput(dispatcher.stdout)
    await waitFor(() => out.text.includes('dispatcher started'), 20_000, 'dispatcher started')
    dispatcher.kill('SIGTERM')
    expect(await dispatcher.exited).toBe(0)
    await out.done
    expect(warnings(out.text)).toEqual([expect.objectContaining({ component: 'dispatcher', databasePath: path, readableByOthers: old })])
  } finally {
    await api.stop()
  }

  // The deployment's directory (docs/operations.md): 0750, its group the service's own; listing shows names only.
  chmodSync(where, 0o750)
  chmodSync(path, 0o600)
  for (const f of [`${path}-wal`, `${path}-shm`, `${path}.migrate-lock`]) {
    try {
      chmodSync(f, 0o600)
    } catch {} // gone with the last connection
  }
  writeFileSync(join(where, 'unrelated.txt'), 'x', { mode: 0o644 }) // not the database's
  const again = spawnApi({ DATABASE_PATH: path })
  try {
    await again.listening()
    expect(warnings(again.stdout.text)).toEqual([])
  } finally {
    await again.stop()
  }
}, 40_000)
