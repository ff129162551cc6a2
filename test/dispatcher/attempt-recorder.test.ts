/** The attempt recorder on its own: batching, lock backoff and failed writes, with a write passed in. */
import { expect, test } from 'bun:test'
import { AttemptRecorder } from '../../dispatcher/attempt-recorder'

function recorder(over: { lock?: () => boolean; write?: (b: number[]) => boolean[]; batch?: number; waitMs?: number } = {}) {
  const writes: number[][] = []
  const errors: unknown[] = []
  const r = new AttemptRecorder<number>({
    write: (b) => {
      writes.push([...b])
      return over.write ? over.write(b) : b.map((n) => n % 2 === 0)
    },
    mayWrite: over.lock ?? (() => true),
    onError: (err) => errors.push(err),
    batch: over.batch ?? 4,
    waitMs: over.waitMs ?? 5,
    maxBackoffMs: 8,
  })
  return { r, writes, errors }
}

test('a full batch is written at once, in one write, each caller told whether its lease held', async () => {
  const { r, writes } = recorder()
  const kept = await Promise.all([1, 2, 3, 4].map((n) => r.record(n)))
  expect(writes).toEqual([[1, 2, 3, 4]])
  expect(kept).toEqual([false, true, false, true])
})

test('a lone answer waits waitMs for company, then goes alone', async () => {
  const { r, writes } = recorder({ waitMs: 20 })
  const t0 = performance.now()
  const one = r.record(2)
  await Bun.sleep(5)
  expect(writes).toEqual([])
  const two = r.record(4)
  expect(await Promise.all([one, two])).toEqual([true, true])
  expect(writes).toEqual([[2, 4]])
  expect(performance.now() - t0).toBeGreaterThanOrEqual(15)
})

test('while another process holds the lock, answers wait (backing off) and are written once it is free', async () => {
  let free = false
  let asked = 0
  const { r, writes } = recorder({ lock: () => (asked++, free), waitMs: 1 })
  const kept = r.record(2)
  await Bun.sleep(30)
  expect(writes).toEqual([])
  expect(r.pending).toBe(1)
  expect(asked).toBeGreaterThan(1)
  expect(asked).toBeLessThan(15) // 1, 2, 4, 8, 8... ms apart, not a spin
  free = true
  expect(await kept).toBe(true)
  expect(writes).toEqual([[2]])
})

test('a write that throws records nothing: every answer of the batch is told its lease is not kept', async () => {
  const { r, errors } = recorder({ write: () => { throw new Error('disk I/O error') } })
  expect(await Promise.all([2, 4].map((n) => r.record(n)))).toEqual([false, false])
  expect((errors[0] as Error).message).toBe('disk I/O error')
})
