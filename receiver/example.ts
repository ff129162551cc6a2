/**
 * An example receiver (Bun.serve): checks the signature (401 when it does not match),
 * deduplicates on X-Service-Delivery, refreshes the named paths through the downstream call
 * `refresh` (your CDN purge or revalidation) and answers 502 when that call fails, so the
 * service retries (spec.md "Delivery rules" 5).
 *
 *   WEBHOOK_SECRET=... PORT=8787 bun receiver/example.ts
 *
 * Run that way, `refresh` only prints the paths (it never fails); `startExampleReceiver({ refresh })`
 * takes your own.
 */
import { createDedupe } from './dedupe.js'
import type { EventPayload } from './payload.js'
import { verifySignature } from './verify.js'

/** The largest body the example receiver reads (16 MiB). */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024

export interface ReceiverOptions {
  secret: string
  port?: number
  /** Refreshes cached pages; throwing makes the receiver answer 502. */
  refresh: (event: EventPayload) => Promise<void>
}

/** Starts the example receiver; returns the Bun server (stop it with `server.stop()`). */
export function startExampleReceiver(opts: ReceiverOptions) {
  const dedupe = createDedupe()
  return Bun.serve({
    port: opts.port ?? 0,
    hostname: '127.0.0.1',
    // Far above any event (the service sends at most 1 MiB), far below Bun's default 128 MiB that
    // an unsigned request could make the receiver buffer before the signature is checked.
    maxRequestBodySize: MAX_EVENT_BYTES,
    // A refresh may take up to the sender's WEBHOOK_TIMEOUT_MS (30 s): Bun's default 10 s would
    // drop the connection first, and the service would retry a delivery still being handled.
    idleTimeout: 40,
    async fetch(req) {
      if (req.method !== 'POST') return new Response('method not allowed', { status: 405 })
      const raw = new Uint8Array(await req.arrayBuffer()) // the raw bytes, before any JSON parsing
      if (!verifySignature(raw, req.headers.get('x-service-signature'), opts.secret)) {
        return new Response('bad signature', { status: 401 })
      }
      // 4xx is final (spec.md "Delivery rules" 5): for a request no retry could make acceptable.
      const id = req.headers.get('x-service-delivery')
      if (!id) return new Response('missing X-Service-Delivery', { status: 400 })
      let event: EventPayload
      try {
        event = JSON.parse(new TextDecoder().decode(raw)) as EventPayload
      } catch {
        return new Response('body is not JSON', { status: 400 })
      }
      if (typeof event !== 'object' || event === null || Array.isArray(event) || typeof event.eventType !== 'string') {
        return new Response('body is not an event', { status: 400 })
      }
      // A retry that arrives while the first attempt is still handled (the sender timed out)
      // waits for it and answers its outcome; a failed handling is forgotten, so the retry runs it.
      try {
        return new Response((await dedupe.run(id, () => opts.refresh(event))) === 'handled' ? 'ok' : 'duplicate')
      } catch {
        return new Response('downstream failed', { status: 502 }) // 5xx: the service retries
      }
    },
  })
}

if (import.meta.main) {
  const secret = process.env.WEBHOOK_SECRET
  if (!secret) throw new Error('Set WEBHOOK_SECRET to the secret shown when the webhook was created.')
  // As the service reads its own PORT: empty is the default, anything but a port number is refused.
  const portText = process.env.PORT || '8787'
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN
  if (!(port >= 0 && port <= 65535)) throw new Error(`PORT must be a port number (0-65535); got ${JSON.stringify(portText)}.`)
  const server = startExampleReceiver({
    secret,
    port,
    async refresh(event) {
      console.log(JSON.stringify({ msg: 'refresh', eventType: event.eventType, scope: event.scope, urls: event.urls, previousUrls: event.previousUrls }))
    },
  })
  console.log(`example receiver on http://127.0.0.1:${server.port}`)
}
