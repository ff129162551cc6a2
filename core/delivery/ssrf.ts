/**
 * SSRF guard (contract.md "Webhooks"): a target must be a public https host. The resolved
 * addresses are checked at send time, not only at save time, because DNS can change between.
 * Refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true: private, loopback, link-local, CGNAT,
 * cloud metadata, unspecified, multicast/reserved, and IPv4-mapped/NAT64 forms of those.
 */
import { isIP } from 'node:net'
import { lookup as dnsLookup } from 'node:dns/promises'
import { domainToUnicode } from 'node:url'
import { echoList } from '../errors'

const V4_BLOCKS: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local / metadata'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  // The documentation ranges (TEST-NET-1/2/3) are not globally reachable either (RFC 5737).
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved / broadcast'],
]

const v4ToInt = (ip: string) => ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0

function blockedV4(ip: string): string | null {
  const n = v4ToInt(ip)
  for (const [base, bits, why] of V4_BLOCKS) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0
    if ((n & mask) === (v4ToInt(base) & mask)) return why
  }
  return null
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tail allowed). */
function v6Groups(ip: string): number[] {
  let s = ip.toLowerCase().split('%')[0]!
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s)
  if (tail) {
    const n = v4ToInt(tail[1]!)
    s = s.slice(0, -tail[1]!.length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const [head, rest] = s.split('::') as [string, string | undefined]
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)))
  const a = parse(head)
  const b = rest === undefined ? [] : parse(rest)
  return [...a, ...new Array(8 - a.length - b.length).fill(0), ...b]
}

function blockedV6(ip: string): string | null {
  const g = v6Groups(ip)
  const embeddedV4 = () => `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`
  if (g.every((x) => x === 0)) return 'unspecified'
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback'
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d).
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) return blockedV4(embeddedV4())
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return blockedV4(embeddedV4())
  // IPv4-translated (::ffff:0:a.b.c.d, RFC 2765) reaches the embedded IPv4 address as well.
  if (g.slice(0, 4).every((x) => x === 0) && g[4] === 0xffff && g[5] === 0) return blockedV4(embeddedV4())
  // Local-use NAT64 (64:ff9b:1::/48, RFC 8215) and 6to4 (2002::/16) route to an IPv4 address the
  // network chooses or embeds: refused whole, as no public webhook needs them.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'local-use NAT64'
  if (g[0] === 0x2002) return '6to4'
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local'
  if ((g[0]! & 0xffc0) === 0xfec0) return 'site-local (deprecated)'
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation'
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return 'discard-only'
  if ((g[0]! & 0xfe00) === 0xfc00) return 'unique local / metadata (fd00:ec2::254)'
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast'
  return null
}

/** Why `ip` may not be a webhook target, or `null` when it is a public address. */
export function blockedAddressReason(ip: string): string | null {
  const kind = isIP(ip)
  if (kind === 4) return blockedV4(ip)
  if (kind === 6) return blockedV6(ip)
  return 'not an IP address'
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

/** A send-time refusal: `final` ones are never retried; a failed DNS lookup is (network error). */
export interface TargetProblem {
  error: string
  final: boolean
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
    return { refused: { error: `network error: cannot resolve host (${(e as { code?: string }).code ?? 'lookup failed'})`, final: false } }
  }
  if (addresses.length === 0) return { refused: { error: 'network error: host has no address', final: false } }
  for (const a of addresses) {
    const why = blockedAddressReason(a)
    if (why) return { refused: nonPublic(why) }
  }
  return { pinned: addresses }
}

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
