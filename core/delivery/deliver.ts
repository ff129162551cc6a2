/**
 * One delivery attempt: build the provider's request, check the target (SSRF, at send time),
 * sign, send to the checked address with a timeout and classify. Used by the dispatcher and by the api's test endpoint.
 */
import type { AttemptRecord } from '../../db/outbox/attempt'
import { buildRequest, type Outgoing, type OutgoingRequest } from './providers'
import { checkTargetAtSend, pinnedRequest, type Lookup } from './ssrf'

/** Response bodies are kept (and shown) up to 4 KiB. */
export const MAX_RESPONSE_BYTES = 4096

export interface DeliverOptions {
  fetch: typeof fetch
  timeoutMs: number
  allowPrivateTargets: boolean
  lookup?: Lookup
  now?: () => number
}

export interface AttemptResult extends AttemptRecord {
  /** A refusal (SSRF, bad target) is final, never retried. */
  refused: boolean
  /** Why a target was refused, for the log line only (never stored or answered: `TargetProblem.detail`). */
  detail?: string
}

/** Reads at most `MAX_RESPONSE_BYTES` of a response body, then stops reading. */
async function readLimited(res: Response): Promise<string> {
  if (!res.body) return ''
  // A declared length within the limit is all there is to read (the HTTP framing stops there):
  // one read, without a stream reader per delivery.
  const declared = Number(res.headers.get('content-length') ?? NaN)
  if (declared >= 0 && declared <= MAX_RESPONSE_BYTES) return res.text()
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < MAX_RESPONSE_BYTES) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } finally {
    reader.cancel().catch(() => {})
  }
  const bytes = Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES)
  // `stream: true` leaves out a character the cut split, rather than ending in U+FFFD (which
  // would also make the kept text longer than the limit in UTF-8).
  return new TextDecoder().decode(bytes, { stream: true })
}

function describe(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout after ${timeoutMs} ms`
  const e = err as { code?: string; name?: string }
  // Only the error code: messages can echo the target URL, and build-hook URLs are secrets.
  return `network error: ${e.code ?? e.name ?? 'unknown'}`
}

/** Sends one attempt. Never throws: every failure is an `AttemptResult`. */
export async function deliverOnce(o: Outgoing, opts: DeliverOptions): Promise<AttemptResult> {
  const now = opts.now ?? Date.now
  const started = now()
  const finish = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...r, durationMs: Math.max(0, Math.round(now() - started)) })
  // spec.md "Delivery rules" 3: the whole answer (status and body) must come within the limit,
  // counted from the start: the send-time DNS lookup is part of it.
  const signal = AbortSignal.timeout(opts.timeoutMs)
  const check = await checkTargetAtSend(o.webhook.target, opts.allowPrivateTargets, opts.lookup, signal)
  if ('refused' in check) {
    const timedOut = signal.aborted && !check.refused.final
    const error = timedOut ? describe(null, true, opts.timeoutMs) : check.refused.error
    const detail = !timedOut && check.refused.detail ? { detail: check.refused.detail } : {}
    return finish({ statusCode: null, error, refused: check.refused.final, responseBody: '', ...detail })
  }
  const req = buildRequest({ ...o, sentAt: now() })
  try {
    const res = await post(opts.fetch, req, { method: 'POST', headers: req.headers, body: req.body, redirect: 'manual', signal }, check.pinned)
    const responseBody = await readLimited(res)
    if (signal.aborted) throw new Error('timeout')
    return finish({ statusCode: res.status, error: null, refused: false, responseBody })
  } catch (err) {
    return finish({ statusCode: null, error: describe(err, signal.aborted, opts.timeoutMs), refused: false, responseBody: '' })
  }
}

/** Connect errors: the request never reached a server, so another checked address may take it. */
const UNREACHED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'])

/**
 * POSTs `req`; with `pinned` addresses, to those the send-time check approved rather than to a
 * second lookup's answer (docs/webhooks-delivery.md#ssrf). They are tried in the resolver's order, the next one
 * only when this one could not be reached (an IPv6 address on a host without an IPv6 route).
 */
function post(fetchFn: typeof fetch, req: OutgoingRequest, init: BunFetchRequestInit, pinned: string[] | null): Promise<Response> {
  return pinned ? postPinned(fetchFn, req, init, pinned) : fetchFn(req.url, init)
}

async function postPinned(fetchFn: typeof fetch, req: OutgoingRequest, init: BunFetchRequestInit, pinned: string[]): Promise<Response> {
  for (let i = 0; ; i++) {
    const to = pinnedRequest(req.url, pinned[i]!)
    try {
      return await fetchFn(to.url, { ...init, headers: { ...req.headers, Host: to.host }, tls: { serverName: to.serverName } })
    } catch (err) {
      if (i + 1 >= pinned.length || !UNREACHED.has((err as { code?: string }).code ?? '')) throw err
    }
  }
}
