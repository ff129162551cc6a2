import { afterAll, expect, test } from 'bun:test'
import { verify } from '@octokit/webhooks-methods'
import { createDedupe, startExampleReceiver, verifySignature } from '../../receiver'
import { sign } from '../../dispatcher/sign'
import { isSiteVisibleChange } from '../../api/teams/site-visible'

test('verifySignature agrees with the signer and with @octokit/webhooks-methods', async () => {
  const body = '{"v":2,"eventType":"content.published","title":"Über"}'
  const header = sign(body, 'secret')
  expect(header).toMatch(/^sha256=[0-9a-f]{64}$/)
  expect(verifySignature(body, header, 'secret')).toBe(true)
  expect(verifySignature(new TextEncoder().encode(body), header, 'secret')).toBe(true)
  expect(await verify('secret', body, header)).toBe(true)
  expect(verifySignature(body, header, 'other')).toBe(false)
  expect(verifySignature(body + ' ', header, 'secret')).toBe(false)
  expect(verifySignature(body, header.slice(7), 'secret')).toBe(false) // no sha256= prefix
  expect(verifySignature(body, 'sha1=' + header.slice(7), 'secret')).toBe(false)
  expect(verifySignature(body, 'sha256=' + header.slice(7).toUpperCase(), 'secret')).toBe(false)
  expect(verifySignature(body, 'sha256=abc', 'secret')).toBe(false)
  expect(verifySignature(body, null, 'secret')).toBe(false)
})

test('dedupe: repeats within the TTL are dropped, the map stays bounded', () => {
  let now = 0
  const d = createDedupe({ max: 2, ttlMs: 1000, now: () => now })
  expect([d.firstTime('a'), d.firstTime('a'), d.firstTime('b')]).toEqual([true, false, true])
  now = 1000
  expect(d.firstTime('a')).toBe(true) // expired
  d.firstTime('c')
  d.firstTime('d')
  expect(d.size).toBe(2)
})

let failDownstream = false
let slowDownstreamMs = 0
const refreshed: string[] = []
const server = startExampleReceiver({
  secret: 's3cret',
  async refresh(e) {
    await Bun.sleep(slowDownstreamMs)
    if (failDownstream) throw new Error('cdn down')
    refreshed.push(...Object.values(e.urls))
  },
})
afterAll(() => server.stop(true))

test('example receiver: 401 on a bad signature, 502 when downstream fails, dedupes deliveries', async () => {
  const body = JSON.stringify({ eventType: 'content.published', urls: { en: '/a' }, previousUrls: [], scope: 'document' })
  const post = (signature: string, id = 'e1') => fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body, headers: { 'x-service-signature': signature, 'x-service-delivery': id } })
  expect((await post(sign(body, 'wrong'))).status).toBe(401)
  failDownstream = true
  expect((await post(sign(body, 's3cret'))).status).toBe(502)
  failDownstream = false
  expect((await post(sign(body, 's3cret'))).status).toBe(200)
  expect((await post(sign(body, 's3cret'))).status).toBe(200)
  expect(refreshed).toEqual(['/a'])
})

test('example receiver: a retry arriving while the first attempt is still handled gets its outcome, never a blind "duplicate"', async () => {
  const body = JSON.stringify({ eventType: 'content.published', urls: { en: '/slow' }, previousUrls: [], scope: 'document' })
  const post = () => fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body, headers: { 'x-service-signature': sign(body, 's3cret'), 'x-service-delivery': 'e-slow' } })
  failDownstream = true
  slowDownstreamMs = 300
  try {
    const first = post()
    await Bun.sleep(50) // the sender timed out and retries while the refresh still runs
    const retry = await post()
    expect({ first: (await first).status, retry: retry.status }).toEqual({ first: 502, retry: 502 })
    // The failure is forgotten, so a later retry is handled again (and now succeeds).
    failDownstream = false
    expect(await (await post()).text()).toBe('ok')
  } finally {
    failDownstream = false
    slowDownstreamMs = 0
  }
})

test('content-type changes the site cannot see are not site changes', () => {
  const type = { name: 'page', collection: 'pages', urls: true, fields: [{ name: 'title', localizable: true }] }
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['label, icon, hint, description', { ...type, label: 'Pages', icon: 'doc', hint: 'h', description: 'd' }, false],
    ['search and filter fields', { ...type, searchFields: ['title'], filterFields: ['title'], fields: [{ name: 'title', localizable: true, searchable: true, filterable: true, label: 'Title' }] }, false],
    // README: `search*` and `filter*`, whatever follows, on the type and on each field.
    ['any search*/filter* key', { ...type, searchWeight: 3, filterOptions: { a: 1 }, fields: [{ name: 'title', localizable: true, searchBoost: 2, FilterGroup: 'x' }] }, false],
    ['a new field', { ...type, fields: [...type.fields, { name: 'body' }] }, true],
    ['urls switched off', { ...type, urls: false }, true],
    ['a field made localizable', { ...type, fields: [{ name: 'title', localizable: false }] }, true],
  ]
  for (const [name, after, expected] of cases) expect({ name, visible: isSiteVisibleChange(type, after) }).toEqual({ name, visible: expected })
  expect(isSiteVisibleChange(null, type)).toBe(true)
})
