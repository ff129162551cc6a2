/**
 * spec.md "Delivery rules" 1: delivery is at least once, so receivers deduplicate on
 * X-Service-Delivery. A bounded map (oldest evicted first) with a time-to-live is enough:
 * retries of one event arrive within seconds of each other. It lives in this process's memory:
 * several instances (or serverless functions) each keep their own, so a repeat that reaches
 * another instance is handled again; make the handling safe to repeat (a cache purge is).
 */
export interface Dedupe {
  /** Records `deliveryId`; true the first time it is seen within the TTL, false for a repeat. */
  firstTime(deliveryId: string): boolean
  /** Forgets an id, e.g. when handling it failed and the retry must be processed. */
  forget(deliveryId: string): void
  /**
   * Handles a delivery once: runs `handler` the first time `deliveryId` is seen and answers
   * `'handled'`; a repeat after that answers `'duplicate'` without running it. A repeat that
   * arrives while the first is still running (a handler slower than the sender's timeout) waits
   * for it and gets its outcome: `'duplicate'`, or the same error. A handler that throws leaves
   * the id forgotten, so the next retry runs it again. Answer 2xx for both results, 5xx on a throw.
   */
  run(deliveryId: string, handler: () => unknown): Promise<'handled' | 'duplicate'>
  /** Ids seen within the TTL (expired ones are dropped as time goes on). */
  readonly size: number
}

export interface DedupeOptions {
  /** Ids kept at most (oldest evicted first); a positive whole number, default 10,000. */
  max?: number
  /** How long an id counts as seen, in ms; positive, default 24 hours. */
  ttlMs?: number
  now?: () => number
}

function positive(name: string, value: number, whole: boolean): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) {
    throw new RangeError(`createDedupe: ${name} must be a positive ${whole ? 'whole number' : 'number'}; got ${String(value)}`)
  }
  return value
}

export function createDedupe(opts: DedupeOptions = {}): Dedupe {
  const max = positive('max', opts.max ?? 10_000, true)
  const ttlMs = positive('ttlMs', opts.ttlMs ?? 24 * 60 * 60 * 1000, false)
  const now = opts.now ?? Date.now
  const seen = new Map<string, number>() // id -> expiry, in insertion order
  const running = new Map<string, Promise<void>>()
  /** Drops expired ids from the oldest end (each id's expiry is its last sighting plus one TTL, so the map is in expiry order). */
  const sweep = (t: number) => {
    while (seen.size > 0) {
      const [id, expiry] = seen.entries().next().value!
      if (expiry > t) break
      seen.delete(id)
    }
  }
  const dedupe: Dedupe = {
    firstTime(id) {
      const t = now()
      sweep(t)
      const expiry = seen.get(id)
      if (expiry !== undefined && expiry > t) return false
      seen.delete(id)
      seen.set(id, t + ttlMs)
      while (seen.size > max) seen.delete(seen.keys().next().value!)
      return true
    },
    forget(id) {
      seen.delete(id)
    },
    async run(id, handler) {
      const first = running.get(id)
      if (first) {
        await first // rethrows the first handling's error
        return 'duplicate'
      }
      if (!dedupe.firstTime(id)) return 'duplicate'
      const handling = (async () => {
        await handler()
      })()
      running.set(id, handling)
      try {
        await handling
        return 'handled'
      } catch (e) {
        dedupe.forget(id) // the next retry runs it again
        throw e
      } finally {
        running.delete(id)
      }
    },
    get size() {
      sweep(now())
      return seen.size
    },
  }
  return dedupe
}
