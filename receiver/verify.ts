/**
 * spec.md "Authentication" rule 3, for receivers: HMAC-SHA256 over the raw body bytes
 * (before any JSON parsing) keyed with the signing secret, `sha256=` + lowercase hex,
 * compared in constant time. A header that does not start with `sha256=` is invalid.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

/** True when `header` (X-Service-Signature) is the signature of `rawBody` under `secret`. */
export function verifySignature(rawBody: string | Uint8Array, header: string | null | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false
  const hex = header.slice('sha256='.length)
  if (!/^[0-9a-f]{64}$/.test(hex)) return false
  const expected = createHmac('sha256', secret).update(rawBody).digest()
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected)
}
