/**
 * What the MCP server tests share: one app per test file (created before its tests, closed
 * after), an official MCP client connected through it, and readers of what the tools wrote.
 */
import { rows } from '../rows'
import { afterAll, beforeAll, expect } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createTestContext, TEAM, type TestContext } from '../helpers'

export const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }

/** A tool's refusal as the assistant reads it. */
export const refusal = (result: any) => {
  expect(result.isError).toBe(true)
  return JSON.parse(result.content[0].text)
}

/** Registers the calling file's app and returns it (`fx.ctx`) with helpers bound to it. */
export function assistantFixture() {
  const fx = {
    ctx: undefined as unknown as TestContext,
    /** An MCP client for `token` on team `team`, sending every request through `app.handle`. */
    connect: async (token: string, team = TEAM): Promise<Client> => {
      const transport = new StreamableHTTPClientTransport(new URL(`http://localhost/mcp/${team}`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => fx.ctx.app.handle(new Request(String(url), init)),
      })
      const client = new Client({ name: 'test-assistant', version: '1.0.0' })
      await client.connect(transport)
      return client
    },
    draft: (id: string, title: string, slug: string) =>
      fx.ctx.call('POST', `/content/${TEAM}`, { body: { id: `${id}/draft`, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title, slug } } } }),
    versions: async (id: string) => (await fx.ctx.call('GET', `/content/versions/${TEAM}?id=${id}`)).body.rows ?? [],
    publishedOk: async () => Number(/service_api_publish_revisions\{outcome="ok"\} (\d+)/.exec((await fx.ctx.call('GET', '/metrics')).text)![1]),
    /** The stored events of document `id`, in the order written (the outbox's seq). */
    eventsOf: async (id: string) =>
      (await rows<{ payload: string }>(fx.ctx.db, 'SELECT payload FROM outbox_events WHERE event_id IN (SELECT event_id FROM outbox) ORDER BY (SELECT min(seq) FROM outbox o WHERE o.event_id = outbox_events.event_id)'))
        .map((r) => JSON.parse(r.payload)).filter((p) => p.documentId === id),
  }
  beforeAll(async () => { fx.ctx = await createTestContext() })
  afterAll(() => fx.ctx.close())
  return fx
}
