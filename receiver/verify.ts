/**
 * spec.md "Authentication" rule 3, for receivers: HMAC-SHA256 over the raw body bytes
 * (before any JSON parsing) keyed with the signing secret, `sha256=` + lowercase hex,
 * compared in constant time. A header that does not start with `sha256=` is invalid.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** The raw body as it came off the wire: text, bytes (`Buffer`, `Uint8Array`, a view) or an `ArrayBuffer` (`await req.arrayBuffer()`). */
export type RawBody = string | ArrayBuffer | ArrayBufferView

/** Also an ArrayBuffer from another realm (a VM context, a test runner's), where `instanceof` says no. */
const isArrayBuffer = (x: unknown): x is ArrayBuffer => x instanceof ArrayBuffer || Object.prototype.toString.call(x) === '[object ArrayBuffer]'

/**
 * The raw body as text or bytes, for an HMAC; `fn` names the caller in the `TypeError` thrown
 * for anything else (a parsed object: `express.json()` ran where `express.raw()` should have).
 */
export function rawBytes(rawBody: RawBody, fn: string): string | Uint8Array {
  const bytes = typeof rawBody === 'string' ? rawBody
    : isArrayBuffer(rawBody) ? new Uint8Array(rawBody)
    : ArrayBuffer.isView(rawBody) ? new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength)
    : null
  if (bytes === null) throw new TypeError(`${fn}: pass the raw body (string, bytes or ArrayBuffer) as received, not a parsed object`)
  return bytes
}

/**
 * True when `header` (X-Service-Signature) is the signature of `rawBody` under `secret`.
 * A missing or malformed header is `false` (answer 401), and so is a header sent twice (node:http
 * joins it, `a, b`, in `req.headers`; `req.headersDistinct` gives an array of two). An array of
 * one value (`req.headersDistinct` gives every header as an array) is that value. A misuse throws a `TypeError` instead,
 * so it shows at once rather than as deliveries refused or, worse, accepted: an empty or
 * missing secret (an unset `WEBHOOK_SECRET` would make anyone's signature valid), or a body
 * that is not the raw bytes (e.g. the object `express.json()` parsed: use `express.raw()`).
 */
export function verifySignature(rawBody: RawBody, header: string | readonly string[] | null | undefined, secret: string | Uint8Array): boolean {
  if (!(typeof secret === 'string' ? secret.length > 0 : ArrayBuffer.isView(secret) && secret.byteLength > 0)) {
    throw new TypeError('verifySignature: the secret is empty or not a string; set it to the secret shown when the webhook was created')
  }
  const bytes = rawBytes(rawBody, 'verifySignature')
  const value = typeof header === 'string' ? header : Array.isArray(header) && header.length === 1 ? header[0] : null
  if (typeof value !== 'string' || !value.startsWith('sha256=')) return false
  const hex = value.slice('sha256='.length)
  if (!/^[0-9a-f]{64}$/.test(hex)) return false
  const expected = createHmac('sha256', secret).update(bytes).digest()
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected)
}
