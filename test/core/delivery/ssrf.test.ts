import { expect, test } from 'bun:test'
import { blockedAddressReason, checkTargetAtSend, checkTargetSyntax, UNREACHABLE_TARGET } from '../../../core/delivery/ssrf'

const blocked = [
  '127.0.0.1', '127.255.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '169.254.1.1',
  '100.64.0.1', '100.127.255.255', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.2.2', '198.51.100.7', '203.0.113.9',
  '::', '::1', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '64:ff9b::10.0.0.1',
  // Forms an outside check found accepted: IPv4-translated, local-use NAT64, 6to4, site-local, documentation, discard.
  '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '64:ff9b:1::7f00:1', '2002:7f00:1::', 'fec0::1', '2001:db8::1', '100::1',
  // Ranges the hand-written list missed and ipaddr.js knows: Teredo (2001::/32, which tunnels to an
  // IPv4 address), benchmarking, ORCHIDv2, the newer documentation block, SRv6 SIDs, the 6to4 relay
  // anycast, AMT; and an IPv4-compatible loopback.
  '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:2::1', '2001:20::1', '3fff::1', '5f00::1', '192.88.99.1', '192.52.193.1', '::7f00:1', '::127.0.0.1',
]
const allowed = ['64:ff9b::808:808', '::ffff:0:808:808', '8.8.8.8', '192.0.3.1', '203.0.114.1', '1.1.1.1', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2001:4860:4860::8888', '2a00:1450::1']

for (const ip of blocked) test(`blocks ${ip}`, () => expect(blockedAddressReason(ip)).not.toBeNull())
for (const ip of allowed) test(`allows ${ip}`, () => expect(blockedAddressReason(ip)).toBeNull())

test('the reason names the range', () => {
  expect(['2001::1', '2001:2::1', '2001:20::1', '127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', 'fd00:ec2::254', 'not an ip'].map(blockedAddressReason)).toEqual([
    'Teredo', 'benchmarking', 'orchid2', 'loopback', 'private', 'link-local / metadata', 'unique local / metadata (fd00:ec2::254)', 'not an IP address',
  ])
})

test('save-time syntax rules', () => {
  expect(checkTargetSyntax('https://hooks.example.com/x', false)).toBeNull()
  expect(checkTargetSyntax('http://hooks.example.com/x', false)).toMatch(/https/)
  expect(checkTargetSyntax('http://127.0.0.1:9/x', true)).toBeNull()
  expect(checkTargetSyntax('https://localhost/x', false)).toMatch(/localhost/)
  expect(checkTargetSyntax('https://[::1]/x', false)).toMatch(/loopback/)
  expect(checkTargetSyntax('https://user:pw@example.com/x', false)).toMatch(/credentials/)
})

// Save time, private targets not allowed: the host name is compared lowercased and without
// one trailing dot, since `LOCALHOST.` reaches the same machine as `localhost`.
const saveTime: [string, RegExp | null][] = [
  ['https://localhost/x', /localhost/],
  ['https://LOCALHOST/x', /localhost/],
  ['https://localhost./x', /localhost/],
  ['https://LOCALHOST./', /localhost/],
  ['https://LocalHost.:8443/x', /localhost/],
  ['https://api.localhost./x', /localhost/],
  ['https://localhost.localdomain/x', /localhost/],
  ['https://Localhost.LocalDomain./x', /localhost/],
  ['https://ip6-localhost/x', /localhost/],
  ['https://127.0.0.1./x', /loopback/],
  ['https://hooks.example.com./x', null],
  ['https://HOOKS.example.com/x', null],
  ['https://localhost.example.com/x', null],
  ['https://notlocalhost/x', null],
]
for (const [target, expected] of saveTime) {
  test(`save time: ${target} ${expected ? 'refused' : 'allowed'}`, () => {
    const why = checkTargetSyntax(target, false)
    if (expected) expect(why).toMatch(expected)
    else expect(why).toBeNull()
  })
}

test('send-time check resolves the host, refuses when any address is private, and pins what it checked', async () => {
  const lookup = (map: Record<string, string[]>) => async (host: string) => map[host] ?? []
  const dns = lookup({ 'public.test': ['93.184.216.34', '2606:2800:220:1::'], 'rebind.test': ['93.184.216.34', '10.0.0.5'], 'meta.test': ['fd00:ec2::254'] })
  expect(await checkTargetAtSend('https://public.test/x', false, dns)).toEqual({ pinned: ['93.184.216.34', '2606:2800:220:1::'] })
  // A name that resolves privately and one that resolves to nothing are told the same; why is for the log.
  const unreachable = (final: boolean, detail: string | RegExp) => ({ refused: { error: UNREACHABLE_TARGET, final, detail: typeof detail === 'string' ? detail : expect.stringMatching(detail) } })
  expect(await checkTargetAtSend('https://rebind.test/x', false, dns)).toEqual(unreachable(true, /^resolves to a non-public address, 10\.0\.0\.5 \(private\)/))
  expect(await checkTargetAtSend('https://meta.test/x', false, dns)).toEqual(unreachable(true, /fd00:ec2::254 \(unique local/))
  expect(await checkTargetAtSend('https://teredo.test/x', false, lookup({ 'teredo.test': ['2001:0:4136:e378:8000:63bf:3fff:fdd2'] }))).toEqual(unreachable(true, /\(Teredo\)/))
  expect(await checkTargetAtSend('https://nothing.test/x', false, dns)).toEqual(unreachable(false, 'host has no address'))
  // Private targets allowed: nothing is checked, nothing pinned; an IP literal needs no lookup.
  expect(await checkTargetAtSend('https://rebind.test/x', true, dns)).toEqual({ pinned: null })
  expect(await checkTargetAtSend('https://8.8.8.8/x', false, dns)).toEqual({ pinned: null })
  expect(await checkTargetAtSend('https://127.0.0.1/x', false, dns)).toEqual({ refused: { error: expect.stringMatching(/^refused: .*loopback/), final: true } })
  const failing = async () => { throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' }) }
  expect(await checkTargetAtSend('https://x.test/x', false, failing)).toEqual(unreachable(false, 'cannot resolve host (ENOTFOUND)'))
})
