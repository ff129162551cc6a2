/**
 * The `service` signature scheme (every webhook's default) sends exactly what it sent before
 * `signatureScheme` existed: the requests below were recorded from the code of that time, for
 * each provider, and must not change by a byte (headers, their order, body, URL).
 */
import { expect, test } from 'bun:test'
import { buildRequest } from '../../../core/delivery/providers'

const EVENT_ID = '0193a6c2-7f00-7000-8000-000000000001'
const payload = JSON.stringify({
  v: 2, eventType: 'content.published', eventId: EVENT_ID, occurredAt: '2026-11-28T10:00:00.000Z', teamId: 'acme', workspaceId: 'main',
  userId: 'u-editor', documentId: 'pages/about', collection: 'pages', locales: ['en'], status: 'published', url: '/about',
  urls: { en: '/about' }, previousUrls: [], scope: 'document',
})
const secret = 'golden-secret-0123456789-abcdefghij'
const targets = {
  custom: 'https://hooks.example.com/in', netlify: 'https://api.netlify.com/build_hooks/abc',
  vercel: 'https://api.vercel.com/v1/integrations/deploy/prj/abc', github: 'https://api.github.com/repos/o/r/dispatches',
} as const

/** Recorded before the setting existed (JSON.stringify of each request: key order included). */
const RECORDED = {
  custom: {"url":"https://hooks.example.com/in","body":"{\"v\":2,\"eventType\":\"content.published\",\"eventId\":\"0193a6c2-7f00-7000-8000-000000000001\",\"occurredAt\":\"2026-11-28T10:00:00.000Z\",\"teamId\":\"acme\",\"workspaceId\":\"main\",\"userId\":\"u-editor\",\"documentId\":\"pages/about\",\"collection\":\"pages\",\"locales\":[\"en\"],\"status\":\"published\",\"url\":\"/about\",\"urls\":{\"en\":\"/about\"},\"previousUrls\":[],\"scope\":\"document\"}","headers":{"Content-Type":"application/json; charset=utf-8","User-Agent":"Service-Webhooks/1.0","X-Service-Event":"content.published","X-Service-Delivery":"0193a6c2-7f00-7000-8000-000000000001","X-Service-Signature":"sha256=452e61535633816c77e093b796052e830e709ce29a4a3aad72ffaaf8e9004928"}},
  netlify: {"url":"https://api.netlify.com/build_hooks/abc?trigger_title=content.published+pages%2Fabout","body":"{}","headers":{"Content-Type":"application/json; charset=utf-8","User-Agent":"Service-Webhooks/1.0","X-Service-Event":"content.published","X-Service-Delivery":"0193a6c2-7f00-7000-8000-000000000001","X-Service-Signature":"sha256=5b62d0da6576e8f3333b2382c61383e508da577817bdd544cb09cdd91ba8564c"}},
  vercel: {"url":"https://api.vercel.com/v1/integrations/deploy/prj/abc","body":"{}","headers":{"Content-Type":"application/json; charset=utf-8","User-Agent":"Service-Webhooks/1.0","X-Service-Event":"content.published","X-Service-Delivery":"0193a6c2-7f00-7000-8000-000000000001","X-Service-Signature":"sha256=5b62d0da6576e8f3333b2382c61383e508da577817bdd544cb09cdd91ba8564c"}},
  github: {"url":"https://api.github.com/repos/o/r/dispatches","body":"{\"event_type\":\"content.published\",\"client_payload\":{\"v\":2,\"eventType\":\"content.published\",\"eventId\":\"0193a6c2-7f00-7000-8000-000000000001\",\"teamId\":\"acme\",\"documentId\":\"pages/about\",\"status\":\"published\",\"url\":\"/about\",\"urls\":{\"en\":\"/about\"},\"previousUrls\":[],\"scope\":\"document\"}}","headers":{"Content-Type":"application/json; charset=utf-8","User-Agent":"Service-Webhooks/1.0","X-Service-Event":"content.published","X-Service-Delivery":"0193a6c2-7f00-7000-8000-000000000001","X-Service-Signature":"sha256=26e7933992be3c90731dea683203bb14a59b1c95817c25d7bc97bf302081b91f","Accept":"application/vnd.github+json","X-GitHub-Api-Version":"2022-11-28","Authorization":"Bearer ghp_goldentoken0123456789"}},
}

for (const provider of ['custom', 'netlify', 'vercel', 'github'] as const) {
  test(`${provider}: a service-scheme request is byte-identical to the one recorded before the setting`, () => {
    const options = provider === 'github' ? { token: 'ghp_goldentoken0123456789' } : {}
    const out = buildRequest({ webhook: { provider, target: targets[provider], secret, options }, payload, eventType: 'content.published', eventId: EVENT_ID })
    expect(JSON.stringify(out)).toBe(JSON.stringify(RECORDED[provider]))
    // A webhook stored with the scheme named explicitly sends the same.
    const named = buildRequest({ webhook: { provider, target: targets[provider], secret, options: { ...options, signatureScheme: 'service' } }, payload, eventType: 'content.published', eventId: EVENT_ID })
    expect(JSON.stringify(named)).toBe(JSON.stringify(RECORDED[provider]))
  })
}
