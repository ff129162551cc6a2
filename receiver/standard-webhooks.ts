/**
 * Verification of the Standard Webhooks headers that a webhook on the `standard-webhooks`
 * signature scheme sends besides spec.md's: `webhook-id` (the eventId), `webhook-timestamp`
 * (seconds, the send time of that attempt) and `webhook-signature` (`v1,` + base64
 * HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed with the bytes of the `whsec_` secret).
 * The timestamp bounds a replay: a delivery captured and sent again later than the tolerance
 * is refused even though its signature is good.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { rawBytes, type RawBody } from './verify.js'

/** Request headers as a receiver has them: fetch's `Headers` (Bun, Deno, Next.js) or node:http's `req.headers`. */
export type HeaderSource = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>

export interface StandardWebhookOptions {
  /** How far the timestamp may lie from now, either way, in seconds; default 300 (5 minutes), as the standard's libraries. */
  toleranceSeconds?: number
  /** The clock, in ms since the epoch (for tests); default `Date.now`. */
  now?: () => number
}

/** The standard's default tolerance: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300

/** One header's value; a header sent twice (an array of two, or node's `a, b` for the id and timestamp) is no value. */
function header(headers: HeaderSource, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name)
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>
  const key = Object.keys(record).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return typeof value === 'string' ? value : Array.isArray(value) && value.length === 1 ? value[0] : null
}

/** The key bytes of a `whsec_` secret (the prefix is optional, as in the standard's libraries). */
function keyOf(secret: string): Buffer {
  if (typeof secret !== 'string') throw new TypeError('verifyStandardWebhook: the secret must be the `whsec_...` text shown when the webhook was created')
  const b64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, 'base64') : Buffer.alloc(0)
  // An empty or unreadable secret (an unset WEBHOOK_SECRET) must never make a signature valid.
  if (key.length === 0) throw new TypeError('verifyStandardWebhook: the secret is empty or not `whsec_` + base64; set it to the secret shown when the webhook was created')
  return key
}

/**
 * True when the Standard Webhooks headers of a request are a valid signature of `rawBody` (the
 * bytes as received, before any JSON parsing) under `secret`, made within the tolerance of now.
 * A missing or malformed header, no matching `v1` signature among the space-separated ones, or a
 * timestamp further than `toleranceSeconds` from now is `false` (answer 401). A misuse throws a
 * `TypeError`: a secret that is empty or not `whsec_` + base64, a parsed body, a bad tolerance.
 * Deduplicate on `webhook-id` (the eventId) as on `X-Service-Delivery`: a retry has a new
 * timestamp and signature but the same id.
 */
export function verifyStandardWebhook(rawBody: RawBody, headers: HeaderSource, secret: string, opts: StandardWebhookOptions = {}): boolean {
  const key = keyOf(secret)
  const bytes = rawBytes(rawBody, 'verifyStandardWebhook')
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  if (typeof tolerance !== 'number' || !(tolerance >= 0) || !Number.isFinite(tolerance)) {
    throw new TypeError(`verifyStandardWebhook: toleranceSeconds must be a number of seconds, 0 or more; got ${String(tolerance)}`)
  }
  if (headers === null || typeof headers !== 'object') throw new TypeError('verifyStandardWebhook: pass the request headers (Headers or req.headers)')
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (!id || !signatures || !timestamp || !/^\d{1,15}$/.test(timestamp)) return false
  const nowSeconds = Math.floor((opts.now ?? Date.now)() / 1000)
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) return false
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(bytes).digest()
  // Several signatures may be sent (during a key rotation): any one that matches is enough.
  return signatures.split(' ').some((candidate) => {
    if (!candidate.startsWith('v1,')) return false
    const b64 = candidate.slice(3)
    if (!/^[A-Za-z0-9+/]{43}=$/.test(b64)) return false
    return timingSafeEqual(Buffer.from(b64, 'base64'), expected)
  })
}
