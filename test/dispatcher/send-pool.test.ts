/** The send pool on its own: slots, fairness and claim budgets, no SQLite and no network. */
import { expect, test } from 'bun:test'
import { SendPool, type PoolLimits, type Slot } from '../../dispatcher/send-pool'

interface Row { webhookId: string; n: number }
const limits: PoolLimits = { concurrency: 4, perWebhook: 2, maxStalled: 2, claimAhead: 4, maxQueueWaitMs: 5000, stallMs: 1000, fastMs: 1000 }
const rows = (webhookId: string, count: number, from = 0): Row[] => Array.from({ length: count }, (_, i) => ({ webhookId, n: from + i }))

function take(pool: SendPool<Row>, at: number) {
  const started: [Row, Slot][] = []
  const expired: Row[] = []
  pool.take(at, (row, slot) => started.push([row, slot]), (row) => expired.push(row))
  return { started, expired }
}

test('per webhook at most perWebhook on the wire, overall at most concurrency, in claim order', () => {
  const pool = new SendPool<Row>(limits)
  pool.add([...rows('a', 5), ...rows('b', 5), ...rows('c', 5)], 0)
  const { started } = take(pool, 0)
  expect(started.map(([r]) => `${r.webhookId}${r.n}`)).toEqual(['a0', 'a1', 'b0', 'b1'])
  expect(pool.active).toBe(4)
  // A freed slot of `a` goes to `a`'s next row; `c` waits for a shared slot, not for `a`.
  pool.free(started[0]![1])
  expect(take(pool, 1).started.map(([r]) => `${r.webhookId}${r.n}`)).toEqual(['a2'])
  expect(pool.free(started[0]![1])).toBe(false) // a second free of one slot counts nothing
  expect(pool.active).toBe(4)
})

test('a send unanswered past stallMs leaves the shared count, up to maxStalled, but keeps its webhook\'s slot', () => {
  const pool = new SendPool<Row>(limits)
  pool.add([...rows('hung', 2), ...rows('x', 2), ...rows('ok', 4)], 0)
  const first = take(pool, 0).started
  expect(first.map(([r]) => r.webhookId)).toEqual(['hung', 'hung', 'x', 'x'])
  expect(pool.stall(999)).toBe(0)
  expect(pool.stall(1000)).toBe(2) // maxStalled: only two of the four move
  expect(pool.active).toBe(2)
  const next = take(pool, 1000).started
  expect(next.map(([r]) => r.webhookId)).toEqual(['ok', 'ok']) // perWebhook still caps `ok`
  pool.free(first[0]![1]) // a stalled send answered: its webhook's slot and the stalled count free up
  expect(pool.active).toBe(4)
  expect(pool.stall(5000)).toBe(1)
})

test('claim budgets: free slots only, unless started and the webhook answers fast; a full queue claims nothing more', () => {
  const pool = new SendPool<Row>(limits)
  expect(pool.budget('a', false)).toBe(2)
  expect(pool.budget('a', true)).toBe(2) // never answered: not known to be fast
  pool.answered('a', 10)
  expect(pool.budget('a', true)).toBe(6) // perWebhook + claimAhead
  pool.add(rows('a', 2), 0)
  expect(pool.budget('a', false)).toBe(0)
  expect(pool.budget('a', true)).toBe(4)
  pool.answered('a', 1000) // slow now
  expect(pool.budget('a', true)).toBe(0)
  pool.answered('a', 10)
  pool.add(rows('a', 1, 2), 0) // three queued > perWebhook: no more claims until the queue drains
  expect(pool.budget('a', true)).toBe(0)
  expect(pool.claimLimit(false)).toBe(4 - 3)
  expect(pool.claimLimit(true)).toBe(4 + 4 * 2 - 3)
})

test('a row queued past maxQueueWaitMs is given back instead of sent; drain gives back the rest', () => {
  const pool = new SendPool<Row>(limits)
  pool.add(rows('a', 4), 0)
  const { started, expired } = take(pool, 6000)
  expect(started).toEqual([])
  expect(expired.map((r) => r.n)).toEqual([0, 1, 2, 3])
  expect(pool.hasQueued()).toBe(false)
  expect(pool.budget('a', false)).toBe(2) // none owned any more
  pool.add(rows('b', 3), 6000)
  take(pool, 6000)
  expect(pool.drain().map((r) => r.n)).toEqual([2])
  expect(pool.budget('b', false)).toBe(0) // the two on the wire are still owned
  expect(pool.hasQueued()).toBe(false)
})

test('without claiming ahead, a queued row never expires', () => {
  const pool = new SendPool<Row>({ ...limits, claimAhead: 0 })
  pool.add(rows('a', 1), 0)
  expect(take(pool, 1_000_000).started).toHaveLength(1)
})
