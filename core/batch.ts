/**
 * Running a batch (publish, lifecycle operations) for a request, one transaction per item,
 * without holding up the process: bun:sqlite waits for another process's write lock inside a
 * statement, synchronously, so an item that found a large seed holding it would stop every other
 * request of the api, reads and `/health` too, for up to busy_timeout. The api's `onBeforeHandle`
 * waits on timers once per request; a batch waits so before each of its items.
 */
import { isBusy, writeLockFree, type Db } from '../db/client'
import { batchItemId } from './documents/ids'

/** What an item not done because another process held the write lock is answered. */
export const BUSY_REASON = 'busy: the database stayed locked by another write (e.g. a large seed); not done, try again shortly'

/** A refusal naming the item the lock stopped (or one after it). */
export const busyItem = (id: string) => ({ id: batchItemId(id), status: 1 as const, reason: BUSY_REASON })

/**
 * Runs `run` on `ids[i]` for each `i` of `order`, waiting before each on timers for another
 * process's write lock (`writeLockFree`); the answers keep the order of `ids`. A lock held past
 * busy_timeout stops the batch: that item and the rest are `busyItem`s, so the answer says exactly
 * which were done. When it stops the first item nothing was done, and it throws (the api answers
 * `503 busy` with `Retry-After`, the assistant's tool `busy`).
 */
export async function runBatchWaiting<T>(
  db: Db,
  ids: readonly string[],
  order: readonly number[],
  run: (id: string) => T | Promise<T>,
): Promise<(T | ReturnType<typeof busyItem>)[]> {
  const answers: (T | ReturnType<typeof busyItem>)[] = new Array(ids.length)
  for (const [n, i] of order.entries()) {
    try {
      await writeLockFree(db)
      answers[i] = await run(ids[i]!)
    } catch (e) {
      if (!isBusy(e) || n === 0) throw e
      for (const j of order.slice(n)) answers[j] = busyItem(ids[j]!)
      break
    }
  }
  return answers
}

/** `0, 1, ... n - 1`: a batch run in the order of its ids. */
export const inOrder = (n: number) => Array.from({ length: n }, (_, i) => i)
