import { afterAll, expect, test } from 'bun:test'
import { chmodSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { makeTestDir } from '../helpers'

const dir = makeTestDir('client-test-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a directory openDb makes for the database is for this user only; an existing one keeps its mode', () => {
  // `bun start` makes ./data this way: under the default umask the file in it is world-readable,
  // and it holds webhook secrets.
  const made = join(dir, 'new', 'deeper')
  openDb(join(made, 'content.db')).$client.close()
  const mode = (p: string) => statSync(p).mode & 0o777
  expect({ parent: mode(join(dir, 'new')), dir: mode(made) }).toEqual({ parent: 0o700, dir: 0o700 })
  const existing = join(dir, 'shared')
  mkdirSync(existing)
  chmodSync(existing, 0o750) // whatever this shell's umask
  openDb(join(existing, 'content.db')).$client.close()
  expect(mode(existing)).toBe(0o750)
})
