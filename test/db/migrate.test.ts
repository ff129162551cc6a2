import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { makeTestDir } from '../helpers'

const dir = makeTestDir('migrate-test-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('four processes opening a fresh database at once apply each migration exactly once', async () => {
  const path = join(dir, 'race.db')
  const script = `import { openDb } from '${join(import.meta.dir, '../../db/client')}'; openDb(process.env.DATABASE_PATH!).$client.close()`
  const procs = Array.from({ length: 4 }, () => Bun.spawn(['bun', '-e', script], { env: { ...process.env, DATABASE_PATH: path }, stderr: 'pipe' }))
  const codes = await Promise.all(procs.map((p) => p.exited))
  expect(codes).toEqual([0, 0, 0, 0])
  const db = new Database(path)
  const applied = db.query('SELECT hash, count(*) AS n FROM __drizzle_migrations GROUP BY hash').all() as { n: number }[]
  expect(applied.length).toBeGreaterThan(0)
  expect(applied.every((r) => r.n === 1)).toBe(true)
  expect(db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
  db.close()
})
