/**
 * One outgoing request per provider. Every provider gets the spec's headers and signature
 * (spec.md "Request sent to a webhook target"), computed over the body actually sent; the
 * body is a pure function of the stored payload bytes, so retries stay identical. A webhook on
 * the `standard-webhooks` scheme also gets the Standard Webhooks headers, whose timestamp is
 * the attempt's own.
 */
import type { WebhookRow } from '../../db/schema'
import { signatureSchemeOf, type EventPayload } from '../webhooks/model'
import { sign, signStandard } from './sign'

export interface OutgoingRequest {
  url: string
  body: string
  headers: Record<string, string>
}

export interface Outgoing {
  webhook: Pick<WebhookRow, 'provider' | 'target' | 'secret' | 'options'>
  /** The exact payload bytes stored in the outbox. */
  payload: string
  eventType: string
  eventId: string
  /** When this attempt is sent, in ms since the epoch (the Standard Webhooks timestamp); default now. */
  sentAt?: number
}

function baseHeaders(o: Outgoing, body: string): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'User-Agent': 'Service-Webhooks/1.0',
    'X-Service-Event': o.eventType,
    'X-Service-Delivery': o.eventId,
    'X-Service-Signature': sign(body, o.webhook.secret),
  }
  if (signatureSchemeOf(o.webhook.options) === 'standard-webhooks') {
    // On top of spec.md's headers, which stay: a receiver may check either signature.
    const timestamp = Math.floor((o.sentAt ?? Date.now()) / 1000)
    headers['webhook-id'] = o.eventId
    headers['webhook-timestamp'] = String(timestamp)
    headers['webhook-signature'] = signStandard(o.eventId, timestamp, body, o.webhook.secret)
  }
  return headers
}

/** The custom endpoint: the v2 payload as is. */
function custom(o: Outgoing): OutgoingRequest {
  return { url: o.webhook.target, body: o.payload, headers: baseHeaders(o, o.payload) }
}

/**
 * Netlify build hooks take an empty body; `trigger_title` names the build in the Netlify UI
 * (the event and document), unless the target sets a title of its own.
 */
function netlify(o: Outgoing): OutgoingRequest {
  const p = JSON.parse(o.payload) as EventPayload
  const url = new URL(o.webhook.target)
  if (!url.searchParams.has('trigger_title')) url.searchParams.set('trigger_title', `${p.eventType} ${p.documentId ?? p.status}`.slice(0, 200))
  return { url: url.toString(), body: '{}', headers: baseHeaders(o, '{}') }
}

/** Vercel deploy hooks: a POST to the hook URL is all they need. */
function vercel(o: Outgoing): OutgoingRequest {
  return { url: o.webhook.target, body: '{}', headers: baseHeaders(o, '{}') }
}

/**
 * GitHub refuses a `client_payload` of 64 KB or more (`422 client_payload is too large`, a
 * final answer, so the event would be lost); its documentation does not say whether that is
 * 64,000 or 65,536 bytes, so the whole body is kept under the smaller with room to spare.
 */
export const GITHUB_MAX_CLIENT_PAYLOAD = 60_000

/**
 * GitHub repository_dispatch: `{event_type, client_payload}` to
 * https://api.github.com/repos/{owner}/{repo}/dispatches. GitHub allows at most 10 top-level
 * keys in `client_payload`, so it carries the fields a workflow acts on. A payload too large
 * for GitHub (a moved subtree lists hundreds of old paths) drops `previousUrls` and says
 * `scope: "site"`, which spec.md defines as "may be incomplete, refresh everything".
 */
function github(o: Outgoing): OutgoingRequest {
  const p = JSON.parse(o.payload) as EventPayload
  const options = o.webhook.options as { token?: string; eventType?: string }
  const clientPayload = {
    v: p.v, eventType: p.eventType, eventId: p.eventId, teamId: p.teamId, documentId: p.documentId,
    status: p.status, url: p.url, urls: p.urls, previousUrls: p.previousUrls, scope: p.scope,
  }
  const envelope = () => JSON.stringify({ event_type: options.eventType ?? p.eventType, client_payload: clientPayload })
  let body = envelope()
  // The whole body is measured (a few bytes more than the payload, within the margin); it is
  // built again only in the rare case it is too large: first without the old paths, then (very
  // long paths in many languages) without the new ones too. `scope: "site"` says so either way.
  if (Buffer.byteLength(body) > GITHUB_MAX_CLIENT_PAYLOAD) {
    clientPayload.previousUrls = []
    clientPayload.scope = 'site'
    body = envelope()
  }
  if (Buffer.byteLength(body) > GITHUB_MAX_CLIENT_PAYLOAD) {
    clientPayload.urls = {}
    clientPayload.url = ''
    body = envelope()
  }
  const headers = { ...baseHeaders(o, body), Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' }
  if (options.token) (headers as Record<string, string>).Authorization = `Bearer ${options.token}`
  return { url: o.webhook.target, body, headers }
}

const PROVIDERS = { custom, netlify, vercel, github } as const

/** Builds the HTTP request a webhook's provider expects for one event. */
export function buildRequest(o: Outgoing): OutgoingRequest {
  return PROVIDERS[o.webhook.provider](o)
}

/** GitHub targets must be a repository_dispatch URL (checked when the webhook is saved). */
export const GITHUB_DISPATCH = /^https:\/\/api\.github\.com\/repos\/[^/?#]+\/[^/?#]+\/dispatches$/
