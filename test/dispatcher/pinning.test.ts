/**
 * docs/webhooks-delivery.md#ssrf: a send connects to the address the send-time check resolved and approved, not to
 * whatever a second DNS lookup answers (rebinding). The host name stays in `Host` and in TLS.
 * The receiver is a real TLS server on 127.0.0.1 with a certificate for `hook.test`
 * (test/fixtures/tls, self-signed). The check must see a public address, so the test's DNS
 * answers 93.184.215.14 and the test's network (a fetch wrapper) carries that address to
 * 127.0.0.1 (and 93.184.215.15 to 127.0.0.2, where nothing listens) and trusts the fixture's CA;
 * everything else is the real fetch.
 */
import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { deliverOnce, type DeliverOptions } from '../../core/delivery/deliver'
import { pinnedRequest } from '../../core/delivery/ssrf'
import { verifySignature } from '../../receiver'

const fixtures = join(import.meta.dir, '../fixtures/tls')
const cert = await Bun.file(join(fixtures, 'hook.test.pem')).text()
const seen: { host: string | null; body: string; signature: string | null }[] = []
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  tls: { cert, key: await Bun.file(join(fixtures, 'hook.test.key')).text() },
  async fetch(req) {
    seen.push({ host: req.headers.get('host'), body: await req.text(), signature: req.headers.get('x-service-signature') })
    return new Response('ok')
  },
})
afterAll(() => server.stop(true))

const PUBLIC = '93.184.215.14'
/** An address of the test's network where nothing listens (127.0.0.2: the receiver is bound to .1). */
const DEAD = '93.184.215.15'
/** What deliverOnce asked fetch to connect to, per call. */
const asked: { url: string; tls: unknown }[] = []
const network: typeof fetch = Object.assign(
  (url: string | URL | Request, init?: BunFetchRequestInit) => {
    asked.push({ url: String(url), tls: init?.tls })
    return fetch(String(url).replace(PUBLIC, '127.0.0.1').replace(DEAD, '127.0.0.2'), { ...init, tls: { ...init?.tls, ca: cert } })
  },
  { preconnect: fetch.preconnect },
)

const webhook = (target: string) => ({ provider: 'custom' as const, target, secret: 'whsec_pinning_test_secret', options: {} })
const outgoing = (target: string) => ({ webhook: webhook(target), payload: '{"v":2,"eventType":"content.published"}', eventType: 'content.published', eventId: 'e-pin' })

test('pinnedRequest connects to the address and keeps the name for Host and TLS', () => {
  expect(pinnedRequest('https://hook.test:8443/a/b?c=1', '93.184.215.14')).toEqual({ url: 'https://93.184.215.14:8443/a/b?c=1', host: 'hook.test:8443', serverName: 'hook.test' })
  expect(pinnedRequest('https://Hook.Test/x', '2606:4700::1')).toEqual({ url: 'https://[2606:4700::1]/x', host: 'hook.test', serverName: 'hook.test' })
})

test('a delivery goes to the checked address, even when the name resolves elsewhere afterwards', async () => {
  // A rebinding DNS: public for the check, loopback for anyone who asks again.
  let lookups = 0
  const lookup = async (host: string) => (host === 'hook.test' && lookups++ === 0 ? [PUBLIC] : ['127.0.0.1'])
  const opts: DeliverOptions = { fetch: network, timeoutMs: 5000, allowPrivateTargets: false, lookup }
  seen.length = 0
  asked.length = 0
  const target = `https://hook.test:${server.port}/hook`
  const result = await deliverOnce(outgoing(target), opts)
  expect(result).toEqual({ statusCode: 200, error: null, refused: false, responseBody: 'ok', durationMs: expect.any(Number) })
  expect(lookups).toBe(1)
  expect(asked).toEqual([{ url: `https://${PUBLIC}:${server.port}/hook`, tls: { serverName: 'hook.test' } }])
  expect(seen).toEqual([{ host: `hook.test:${server.port}`, body: outgoing(target).payload, signature: expect.stringMatching(/^sha256=/) }])
  expect(verifySignature(seen[0]!.body, seen[0]!.signature, webhook(target).secret)).toBe(true)
})

test('the certificate is still checked against the host name, not the pinned address', async () => {
  const lookup = async () => [PUBLIC]
  const result = await deliverOnce(outgoing(`https://other.test:${server.port}/hook`), { fetch: network, timeoutMs: 5000, allowPrivateTargets: false, lookup })
  expect(result).toEqual({ statusCode: null, error: expect.stringMatching(/^network error: .*ALTNAME/), refused: false, responseBody: '', durationMs: expect.any(Number) })
})

test('an address that cannot be reached hands the request to the next checked one; other errors do not', async () => {
  asked.length = 0
  seen.length = 0
  const opts = (addresses: string[]): DeliverOptions => ({ fetch: network, timeoutMs: 5000, allowPrivateTargets: false, lookup: async () => addresses })
  const target = `https://hook.test:${server.port}/hook`
  expect(await deliverOnce(outgoing(target), opts([DEAD, PUBLIC]))).toMatchObject({ statusCode: 200, error: null })
  expect(asked.map((a) => a.url)).toEqual([`https://${DEAD}:${server.port}/hook`, `https://${PUBLIC}:${server.port}/hook`])
  expect(seen).toHaveLength(1)
  asked.length = 0
  expect(await deliverOnce(outgoing(target), opts([DEAD]))).toMatchObject({ statusCode: null, error: 'network error: ECONNREFUSED' })
  // A certificate that does not name the host is an answer, not an unreachable address: no second try.
  asked.length = 0
  expect((await deliverOnce(outgoing(`https://other.test:${server.port}/hook`), opts([PUBLIC, DEAD]))).error).toMatch(/ALTNAME/)
  expect(asked).toHaveLength(1)
})

test('IP-literal targets and allowed private targets are fetched as they are', async () => {
  asked.length = 0
  const lookup = async () => { throw new Error('no lookup expected') }
  const literal = await deliverOnce(outgoing(`https://${PUBLIC}:${server.port}/hook`), { fetch: network, timeoutMs: 5000, allowPrivateTargets: false, lookup })
  // The fixture's certificate names hook.test, not the address: TLS refuses, as it should.
  expect(literal.error).toMatch(/^network error: /)
  const allowed = await deliverOnce(outgoing(`https://hook.test:${server.port}/hook`), { fetch: network, timeoutMs: 5000, allowPrivateTargets: true, lookup })
  expect(allowed.error).toMatch(/^network error: /) // hook.test has no DNS entry outside this test
  expect(asked).toEqual([
    { url: `https://${PUBLIC}:${server.port}/hook`, tls: undefined },
    { url: `https://hook.test:${server.port}/hook`, tls: undefined },
  ])
})

test('a DNS lookup that hangs counts against the timeout: the attempt ends at WEBHOOK_TIMEOUT_MS as a timeout, retried, nothing sent', async () => {
  asked.length = 0
  const hung = () => new Promise<string[]>(() => {})
  const started = Date.now()
  const result = await deliverOnce(outgoing(`https://hook.test:${server.port}/hook`), { fetch: network, timeoutMs: 150, allowPrivateTargets: false, lookup: hung })
  const took = Date.now() - started
  expect(result).toEqual({ statusCode: null, error: 'timeout after 150 ms', refused: false, responseBody: '', durationMs: expect.any(Number) })
  expect(took).toBeGreaterThanOrEqual(140)
  expect(took).toBeLessThan(2000)
  expect(asked).toEqual([])
  // A slow lookup that answers within the limit still delivers.
  const slow = () => Bun.sleep(30).then(() => [PUBLIC])
  expect(await deliverOnce(outgoing(`https://hook.test:${server.port}/hook`), { fetch: network, timeoutMs: 2000, allowPrivateTargets: false, lookup: slow })).toMatchObject({ statusCode: 200 })
})
