/** spec.md "Request sent to a webhook target": the signature header value. */
import { createHmac } from 'node:crypto'

/**
 * `sha256=` + lowercase hex HMAC-SHA256 of the raw body keyed with the signing secret.
 * The result must never reach a log line.
 */
export function sign(body: string | Uint8Array, secret: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex')
}
