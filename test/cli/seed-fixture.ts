/**
 * What the `bun run cli seed` tests share: a temp folder per test file (removed after it) for
 * seed files and databases, and a way to run the real command on them.
 */
import { afterAll } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestDir } from '../helpers'

export const root = join(import.meta.dir, '../..')

/** Runs `bun run cli seed <file>` against the database at `databasePath` (with `env` added), as a user would. */
export function runSeed(file: string, databasePath: string, env: Record<string, string> = {}) {
  const proc = Bun.spawnSync(['bun', 'run', 'cli', 'seed', file], { cwd: root, env: { ...process.env, DATABASE_PATH: databasePath, ...env } })
  return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() }
}

/** Makes the calling file's temp folder and registers its removal after the file's tests. */
export function seedDir() {
  const dir = makeTestDir('seed-test-')
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
