/**
 * An example receiver (Bun.serve): checks the signature (401 when it does not match),
 * deduplicates on X-Service-Delivery, refreshes the named paths through a downstream call
 * and answers 502 when that call fails, so the service retries (spec.md "Delivery rules" 5).
 *
 *   WEBHOOK_SECRET=... PORT=8787 bun receiver/example.ts
 */
import { createDedupe } from './dedupe'
import { verifySignature } from './verify'

export interface ReceiverOptions {
  secret: string
  port?: number
  /** Refreshes cached pages; throwing makes the receiver answer 502. */
  refresh: (event: { eventType: string; urls: Record<string, string>; previousUrls: string[]; scope: string }) => Promise<void>
}

/** Starts the example receiver; returns the Bun server (stop it with `server.stop()`). */
export function startExampleReceiver(opts: ReceiverOptions) {
  const dedupe = createDedupe()
  // Deliveries being handled now, with their outcome: a retry that arrives meanwhile (the first
  // attempt timed out on the sender's side) waits for it. Answering it "duplicate" at once would
  // mark the event delivered even when the first handling then fails.
  const handling = new Map<string, Promise<boolean>>()
  return Bun.serve({
    port: opts.port ?? 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      if (req.method !== 'POST') return new Response('method not allowed', { status: 405 })
      const raw = new Uint8Array(await req.arrayBuffer()) // the raw bytes, before any JSON parsing
      if (!verifySignature(raw, req.headers.get('x-service-signature'), opts.secret)) {
        return new Response('bad signature', { status: 401 })
      }
      const id = req.headers.get('x-service-delivery') ?? ''
      const pending = handling.get(id)
      if (pending) return (await pending) ? new Response('duplicate', { status: 200 }) : new Response('downstream failed', { status: 502 })
      if (!dedupe.firstTime(id)) return new Response('duplicate', { status: 200 })
      // Any failure, a parse error included, is a 502 (retried), never an unhandled 500.
      const outcome = Promise.resolve().then(() => opts.refresh(JSON.parse(new TextDecoder().decode(raw)))).then(() => true, () => false)
      handling.set(id, outcome)
      const ok = await outcome
      handling.delete(id)
      if (ok) return new Response('ok')
      dedupe.forget(id) // let the next retry through
      return new Response('downstream failed', { status: 502 })
    },
  })
}

if (import.meta.main) {
  const secret = process.env.WEBHOOK_SECRET
  if (!secret) throw new Error('Set WEBHOOK_SECRET to the secret shown when the webhook was created.')
  const server = startExampleReceiver({
    secret,
    port: Number(process.env.PORT ?? 8787),
    async refresh(event) {
      console.log(JSON.stringify({ msg: 'refresh', eventType: event.eventType, scope: event.scope, urls: event.urls, previousUrls: event.previousUrls }))
    },
  })
  console.log(`example receiver on http://127.0.0.1:${server.port}`)
}
