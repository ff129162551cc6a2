/** The write gate on its own: it says what the probe says, and warns once per long wait. */
import { expect, test } from 'bun:test'
import { createLogger } from '../../core/log'
import { LOCK_WARN_MS, WriteGate } from '../../dispatcher/write-gate'

test('a lock held by another process for LOCK_WARN_MS is one warning per wait', () => {
  const lines: { msg: string; waitedMs: number }[] = []
  const log = createLogger('warn', 'test', { write: (line: string) => void lines.push(JSON.parse(line)) })
  let free = false
  let clock = 0
  const gate = new WriteGate(() => free, () => clock, log)
  expect(gate.free()).toBe(false)
  clock = LOCK_WARN_MS - 1
  expect(gate.free()).toBe(false)
  expect(lines).toEqual([])
  clock = LOCK_WARN_MS
  gate.free()
  clock += 5000
  gate.free()
  expect(lines.map((l) => [l.msg, l.waitedMs])).toEqual([['another process has held the database write lock for a while; claims and records wait for it', LOCK_WARN_MS]])
  free = true
  expect(gate.free()).toBe(true)
  free = false
  clock += 1
  gate.free()
  clock += LOCK_WARN_MS
  gate.free() // a new wait, a new warning
  expect(lines).toHaveLength(2)
})
