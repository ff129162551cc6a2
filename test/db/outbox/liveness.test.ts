/** Proof of life on its own: a held lock is alive, a file no one holds is a dead owner's. */
import { afterEach, expect, test } from 'bun:test'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestDir } from '../../helpers'
import { Liveness, lockIsFree } from '../../../db/outbox/liveness'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

test('a started dispatcher holds its lock; others see it alive, then a file no one holds as dead, removed a lease later', () => {
  const dir = join(makeTestDir(), 'db.dispatchers')
  dirs.push(dir)
  const a = new Liveness(dir, 1000)
  const b = new Liveness(dir, 1000)
  expect(a.start()).toBe(true)
  expect(b.start()).toBe(true)
  expect(readdirSync(dir).sort()).toEqual([`${a.owner}.lock`, `${b.owner}.lock`].sort())
  expect(lockIsFree(join(dir, `${a.owner}.lock`))).toBe(false)
  expect(b.scan(0)).toEqual([])
  // What a kill -9 leaves: the file, with no process holding it.
  writeFileSync(join(dir, 'dead-owner.lock'), '')
  expect(b.scan(10)).toEqual(['dead-owner'])
  expect(b.scan(1010)).toEqual(['dead-owner'])
  expect(b.scan(1011)).toEqual([]) // a lease later: every row it leased is free by its lease anyway
  expect(existsSync(join(dir, 'dead-owner.lock'))).toBe(false)
  a.stop() // a clean stop takes its file along: nothing to prove dead
  expect(readdirSync(dir)).toEqual([`${b.owner}.lock`])
  expect(lockIsFree(join(dir, `${a.owner}.lock`))).toBe(false)
  b.stop()
})
