/**
 * spec.md "Delivery rules" 1: delivery is at least once, so receivers deduplicate on
 * X-Service-Delivery. A bounded map (oldest evicted first) with a time-to-live is enough:
 * retries of one event arrive within seconds of each other.
 */
export interface Dedupe {
  /** Records `deliveryId`; true the first time it is seen within the TTL, false for a repeat. */
  firstTime(deliveryId: string): boolean
  /** Forgets an id, e.g. when handling it failed and the retry must be processed. */
  forget(deliveryId: string): void
  readonly size: number
}

export function createDedupe(opts: { max?: number; ttlMs?: number; now?: () => number } = {}): Dedupe {
  const max = opts.max ?? 10_000
  const ttlMs = opts.ttlMs ?? 24 * 60 * 60 * 1000
  const now = opts.now ?? Date.now
  const seen = new Map<string, number>() // id -> expiry, in insertion order
  return {
    firstTime(id) {
      const t = now()
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
    get size() {
      return seen.size
    },
  }
}
