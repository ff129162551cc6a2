/**
 * The retry schedule of spec.md "Delivery rules" as pure functions: 2xx delivered; 5xx,
 * timeouts and network errors retried up to 3 attempts in total, waiting 1-2 s and then
 * 2-3 s (jittered); 4xx final (misconfiguration). Redirects are not followed and are final too:
 * following them would let a public target bounce us to a private address.
 */
import type { NextStep } from '../../db/outbox/attempt'

/** spec.md "Limits": delivery attempts. */
export const MAX_ATTEMPTS = 3

/** How one attempt ended: an HTTP status, or `null` for a timeout / network error. */
export type AttemptOutcome = { statusCode: number | null; refused?: boolean }

export type { NextStep }

/** Is this outcome worth another attempt (ignoring the attempt budget)? */
export function isRetryable(o: AttemptOutcome): boolean {
  if (o.refused) return false
  if (o.statusCode === null) return true
  return o.statusCode >= 500
}

/**
 * Jitter stays this far inside each window: the wait counts from the answer, and the next
 * request reaches the receiver a few ms after its due time (claim, connect), so a delay at the
 * window's very edge would be seen outside it.
 */
export const RETRY_MARGIN_MS = 100

/**
 * Wait before the attempt after `attempt` (1-based): 1-2 s after the first, 2-3 s after the
 * second (spec.md "Delivery rules" 4), jittered within [start + margin, end - margin).
 * `random` in [0, 1) is injected so tests can pin the jitter.
 */
export function retryDelayMs(attempt: number, random: number): number {
  const base = attempt <= 1 ? 1000 : 2000
  const spread = 1000 - 2 * RETRY_MARGIN_MS
  return base + RETRY_MARGIN_MS + Math.floor(Math.min(Math.max(random, 0), 0.999) * spread)
}

/** What to do after attempt number `attempt` ended with `outcome`. */
export function nextStep(attempt: number, outcome: AttemptOutcome, random: number): NextStep {
  const code = outcome.statusCode
  if (!outcome.refused && code !== null && code >= 200 && code < 300) return { status: 'delivered' }
  if (isRetryable(outcome) && attempt < MAX_ATTEMPTS) return { status: 'pending', delayMs: retryDelayMs(attempt, random) }
  return { status: 'failed' }
}
