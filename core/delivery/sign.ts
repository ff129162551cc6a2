/**
 * Signatures of an outgoing request: spec.md's `X-Service-Signature` (every webhook) and, for a
 * webhook on the `standard-webhooks` scheme, the Standard Webhooks `webhook-signature`.
 */

/**
 * `sha256=` + lowercase hex HMAC-SHA256 of the raw body keyed with the signing secret.
 * The result must never reach a log line.
 */
export function sign(body: string | Uint8Array, secret: string): string {
  // Bun's native HMAC: the same bytes as node:crypto's createHmac, in about 60% of the time.
  return 'sha256=' + new Bun.CryptoHasher('sha256', secret).update(body).digest('hex')
}

/** The prefix of a Standard Webhooks signing secret; the rest is the base64 of the key bytes. */
export const STANDARD_SECRET_PREFIX = 'whsec_'

/**
 * Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed with the
 * bytes the `whsec_` secret's base64 part decodes to (not with the secret's text, as `sign` is).
 * `timestamp` is in whole seconds. The result must never reach a log line.
 */
export function signStandard(id: string, timestamp: number, body: string | Uint8Array, secret: string): string {
  const key = Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64')
  return 'v1,' + new Bun.CryptoHasher('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')
}
