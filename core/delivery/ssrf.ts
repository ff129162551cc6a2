/**
 * SSRF guard (contract.md "Webhooks"): a target must be a public https host. The resolved
 * addresses are checked at send time, not only at save time, because DNS can change between.
 * Refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true: every address ipaddr.js does not class as
 * plain unicast (private, loopback, link-local, CGNAT, cloud metadata, unique local,
 * unspecified, multicast, reserved and documentation ranges, 6to4, Teredo, ...), and the
 * IPv4-mapped, -translated, -compatible and NAT64 forms of an IPv4 address that is.
 */
import ipaddr from 'ipaddr.js'
import { isIP } from 'node:net'
import { lookup as dnsLookup } from 'node:dns/promises'
import { domainToUnicode } from 'node:url'
import { echoList } from '../errors'

/** ipaddr.js's range names in an operator's words (docs/security.md "Webhook targets"); others are shown as ipaddr.js names them. */
const RANGE_WORDS: Record<string, string> = {
  linkLocal: 'link-local / metadata', carrierGradeNat: 'carrier-grade NAT', uniqueLocal: 'unique local / metadata (fd00:ec2::254)',
  deprecatedSiteLocal: 'site-local (deprecated)', reserved: 'reserved / documentation', rfc6052: 'local-use NAT64', teredo: 'Teredo',
}

/** The NAT64 prefix whose last 32 bits are the IPv4 address reached (RFC 6052 2.1); the local-use /48 embeds it elsewhere. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96')

/** The IPv4 address an IPv6 one reaches through, when the last 32 bits are one: mapped, translated, compatible, NAT64. */
function embeddedV4(a: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const compatible = range === 'unicast' && a.parts.slice(0, 6).every((x) => x === 0) // ::a.b.c.d (RFC 4291 2.5.5.1)
  if (range !== 'ipv4Mapped' && range !== 'rfc6145' && !compatible && !(range === 'rfc6052' && a.match(NAT64))) return null
  return ipaddr.fromByteArray(a.toByteArray().slice(12)) as ipaddr.IPv4
}

/** Why `ip` may not be a webhook target, or `null` when it is a public address. */
export function blockedAddressReason(ip: string): string | null {
  if (!isIP(ip)) return 'not an IP address' // isIP first: ipaddr.js also reads short forms (`127.1`)
  const a = ipaddr.parse(ip)
  const range: string = a.range()
  if (a.kind() === 'ipv6') {
    const v4 = embeddedV4(a as ipaddr.IPv6, range)
    if (v4) return blockedAddressReason(v4.toString())
  }
  return range === 'unicast' ? null : (RANGE_WORDS[range] ?? range)
}

export type Lookup = (host: string) => Promise<string[]>

/** All addresses of `host` (A and AAAA), as the OS resolver returns them. */
export const systemLookup: Lookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address)

/** How long a successful lookup of a host NAME is reused by the send-time check (docs/webhooks-delivery.md#ssrf). */
export const LOOKUP_TTL_MS = 1000
const lookups = new Map<string, { at: number; addresses: Promise<string[]> }>()

/**
 * `systemLookup` with each name's answer reused for `LOOKUP_TTL_MS`: a backlog to one host
 * checks its addresses once a second, not once per delivery (getaddrinfo on every send costs
 * more than the send). Failed lookups are not kept; IP literals never get here.
 */
export const cachedSystemLookup: Lookup = (host) => {
  const now = Date.now()
  const hit = lookups.get(host)
  if (hit && now - hit.at < LOOKUP_TTL_MS) return hit.addresses
  if (lookups.size > 1000) lookups.clear()
  const addresses = systemLookup(host)
  lookups.set(host, { at: now, addresses })
  addresses.catch(() => lookups.delete(host))
  return addresses
}

/** Save-time syntax results per target (a pure function of the text): one URL parse per target, not per send. */
const syntaxCache = new Map<string, { why: string | null; host: string }>()
function syntaxOf(target: string, allowPrivate: boolean): { why: string | null; host: string } {
  const key = (allowPrivate ? '1' : '0') + target
  let hit = syntaxCache.get(key)
  if (!hit) {
    const why = checkTargetSyntax(target, allowPrivate)
    hit = { why, host: why ? '' : bareHost(new URL(target)) }
    if (syntaxCache.size > 1000) syntaxCache.clear()
    syntaxCache.set(key, hit)
  }
  return hit
}

const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '')

/**
 * The host as a resolver sees it, for comparing with names: URL already lowercases it, and one
 * trailing dot (the DNS root, `localhost.`) names the same host, so it must not slip past.
 */
const normalHost = (url: URL) => bareHost(url).toLowerCase().replace(/\.$/, '')

/** What an operator sets to allow private targets, named in save-time refusals (it is no secret). */
const ALLOW_PRIVATE = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true'

/** Names that mean this machine in common /etc/hosts files (RFC 6761 reserves `*.localhost` too). */
const LOCAL_NAMES = ['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']

/**
 * Save-time check: the URL is well formed, `https:` (plain `http:` only when private targets
 * are allowed) and does not name a private address literally. Returns an error text or null.
 */
export function checkTargetSyntax(target: string, allowPrivate: boolean): string | null {
  // The URL parser drops tabs, newlines and outer spaces and encodes the rest: the target is
  // stored as written, so what it says and where it sends must not differ.
  if (!target.isWellFormed() || /[\u0000-\u0020\u007f]/.test(target)) return 'The target must not contain spaces or control characters.'
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return 'The target is not a valid URL.'
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return url.protocol === 'http:'
      ? `The target must be an https:// URL (plain http:// only when the service runs with ${ALLOW_PRIVATE}, for receivers on a private network).`
      : 'The target must be an https:// URL.'
  }
  if (url.username || url.password) return 'The target must not carry credentials.'
  if (allowPrivate) return null
  const host = normalHost(url)
  if (LOCAL_NAMES.includes(host) || host.endsWith('.localhost')) return `The target must be a public host, not localhost (a receiver on this machine needs ${ALLOW_PRIVATE}).`
  if (isIP(host)) {
    const why = blockedAddressReason(host)
    if (why) return `The target must be a public address (${why}; a receiver there needs ${ALLOW_PRIVATE}).`
  }
  return null
}

/**
 * Save-time only (a new or changed target): the target is written the one way every URL parser
 * reads alike, so the host shown is the host sent to. WHATWG reads `\` as `/` (`https://a\\@b/`
 * goes to a, other parsers read b), and takes `https:b`, `https:/b` and an empty `@` in stride.
 * Not checked at send time: a target stored before this rule keeps being delivered to.
 */
export function targetFormProblem(target: string): string | null {
  if (target.includes('\\')) return 'The target must not contain a backslash.'
  // Unicode spaces too (no-break, line separator, BOM): the secret's rule, and a path with one is a paste accident.
  if (/\s/.test(target)) return 'The target must not contain spaces or control characters.'
  const written = /^https?:\/\/([^/?#@]+)(?:[/?#]|$)/i.exec(target)?.[1]
  if (written === undefined) return 'The target must be written https://host[:port][/path].'
  const url = URL.parse(target)
  if (url?.port === '0') return 'The target must not name port 0.'
  if (url && !sameHost(written.replace(/:\d*$/, ''), url.hostname)) {
    return `The target's host must be written as it is sent to (${echoList([url.hostname])}): not another spelling of it (invisible characters, percent-escapes, full-width or compatibility letters, short IP forms).`
  }
  return null
}

/**
 * Whether a host as written is the host a URL parser sends to: the same text but for letter case,
 * or an internationalised name in Unicode (`bücher.example`, sent as `xn--bcher-kva.example`).
 * A zero-width space, a soft hyphen, `%61`, `ℂ` or `。` are dropped or mapped by the parser
 * (IDNA), so `exa\u200bmple.com` would be shown while `example.com` is called. A non-ASCII
 * letter whose lower case is ASCII (the Kelvin sign `K`, `İ`) is another spelling too.
 */
function sameHost(written: string, parsed: string): boolean {
  const chars = [...written]
  if (chars.some((c) => c > '\x7f' && /[\x00-\x7f]/.test(c.toLowerCase()))) return false
  const lower = written.toLowerCase()
  return lower === parsed || (parsed.includes('xn--') && lower === domainToUnicode(parsed))
}

/**
 * What a send to a host NAME is told when that name cannot be used, whatever the reason (it does
 * not resolve, has no address, or resolves to a non-public one): told apart, the answer of a test
 * send and the delivery log would let a caller map which internal names exist. The reason goes
 * to the log line only (`TargetProblem.detail`; docs/security.md "Webhook targets").
 */
export const UNREACHABLE_TARGET = 'target is not a reachable public address'

/** A send-time refusal: `final` ones are never retried; a failed DNS lookup is (network error). */
export interface TargetProblem {
  /** What the caller and the delivery log are told. */
  error: string
  final: boolean
  /** Why, for operators (the log line): set when `error` is `UNREACHABLE_TARGET`. */
  detail?: string
}

/**
 * What the send-time check decided: refused, or allowed. An allowed https host NAME comes with
 * `pinned`, the checked addresses (in the resolver's order) the request must connect to (see
 * `pinnedRequest`); null for IP literals (nothing to resolve) and when private targets are
 * allowed (nothing checked).
 */
export type SendCheck = { refused: TargetProblem } | { pinned: string[] | null }

/** `p`, or a rejection as soon as `signal` aborts (a hung resolver must not outlast the send's timeout). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}

/**
 * Send-time check: resolves the host and refuses when any address is not public. By default a
 * host name's addresses are looked up at most once per `LOOKUP_TTL_MS` (`cachedSystemLookup`);
 * IP literals are checked as they are. A lookup still running when `signal` aborts (the send's
 * timeout) fails the check as a network error, retried like any other.
 */
export async function checkTargetAtSend(
  target: string,
  allowPrivate: boolean,
  lookup: Lookup = cachedSystemLookup,
  signal?: AbortSignal,
): Promise<SendCheck> {
  const { why: syntax, host } = syntaxOf(target, allowPrivate)
  if (syntax) return { refused: { error: `refused: ${syntax}`, final: true } }
  if (allowPrivate) return { pinned: null }
  if (isIP(host)) {
    const why = blockedAddressReason(host)
    return why ? { refused: nonPublic(why) } : { pinned: null }
  }
  let addresses: string[]
  try {
    addresses = await (signal ? untilAborted(lookup(host), signal) : lookup(host))
  } catch (e) {
    return { refused: unreachable(`cannot resolve host (${(e as { code?: string }).code ?? 'lookup failed'})`, false) }
  }
  if (addresses.length === 0) return { refused: unreachable('host has no address', false) }
  for (const a of addresses) {
    const why = blockedAddressReason(a)
    if (why) return { refused: unreachable(`resolves to a non-public address, ${a} (${why}); ${ALLOW_PRIVATE} allows it`, true) }
  }
  return { pinned: addresses }
}

const unreachable = (detail: string, final: boolean): TargetProblem => ({ error: UNREACHABLE_TARGET, final, detail })

/** An IP literal the caller wrote themselves: nothing to map, so the reason is told. */
const nonPublic = (why: string): TargetProblem => ({
  error: `refused: target resolves to a non-public address (${why}); set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow`,
  final: true,
})

/** A request that connects to a pinned address while naming its host. */
export interface PinnedRequest {
  url: string
  /** The `Host` header: the target's host and port, as a connect by name would send it. */
  host: string
  /** TLS server name: sent as SNI, and the name the certificate is checked against. */
  serverName: string
}

/**
 * The request for `url` connecting to `address` (the one `checkTargetAtSend` checked) instead
 * of resolving the name again: a DNS answer that changes between the check and the connect
 * (rebinding) cannot move the request to a private address. The host name stays in the `Host`
 * header and in TLS (SNI and the certificate check), so the receiver sees the same request.
 */
export function pinnedRequest(url: string, address: string): PinnedRequest {
  const u = new URL(url)
  const host = u.host
  const serverName = bareHost(u)
  u.hostname = isIP(address) === 6 ? `[${address}]` : address
  return { url: u.toString(), host, serverName }
}
