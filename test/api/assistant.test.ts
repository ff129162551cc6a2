/**
 * The MCP server for AI assistants (`POST /mcp/{activeTeam}`), driven by the official MCP
 * client over the app's real HTTP handling: what a connected assistant sees and does.
 */
import { describe, expect, test } from 'bun:test'
import { TEAM, TOKENS } from '../helpers'
import { assistantFixture, INIT, refusal } from './assistant-fixture'

const fx = assistantFixture()
const { connect, draft, versions, publishedOk, eventsOf } = fx

describe('MCP server for assistants', () => {
  test('initialize and tools/list: publish_content and get_content with their JSON Schemas', async () => {
    const client = await connect(TOKENS.editor)
    expect(client.getServerVersion()).toEqual({ name: 'content-service', version: '0.1.0' })
    expect(client.getServerCapabilities()).toEqual({ tools: {} }) // tools only: no resources, prompts or logging
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['get_content', 'list_content', 'publish_content'])
    const publish = tools.find((t) => t.name === 'publish_content')!
    expect(publish.inputSchema).toMatchObject({ type: 'object', required: ['ids'], properties: { ids: { type: 'array', items: { type: 'string' } }, locales: { type: 'array' } } })
    // Publishing replaces what the site serves: clients should ask before they call it.
    expect(publish.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false })
    expect(tools.find((t) => t.name === 'get_content')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    await client.close()
    // A member who may not publish is offered only what they may call.
    const translator = await connect(TOKENS.translator)
    expect((await translator.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_content', 'list_content'])
    await translator.close()
  })

  test('publish_content is a publish: stamped by the acting user, one new version, the api metric, content.published with the user', async () => {
    await draft('pages/ai', 'From the assistant', 'ai')
    const okBefore = await publishedOk()
    const client = await connect(TOKENS.editor)
    const result = await client.callTool({ name: 'publish_content', arguments: { ids: ['pages/ai', 'pages/none'] } })
    expect(result.isError).toBeFalsy()
    const { results } = result.structuredContent as { results: any[] }
    expect(results).toHaveLength(2)
    expect(results[0]).toMatchObject({ id: 'pages/ai', status: 0, document: { id: 'pages/ai', __publishedBy: 'u-editor', locales: { en: { title: 'From the assistant', slug: 'ai' } } } })
    expect(results[1]).toEqual({ id: 'pages/none', status: 1, reason: expect.any(String) })
    // The text content carries the same answer, for clients that read only text.
    expect(JSON.parse((result.content as any[])[0].text)).toEqual({ results })

    const live = (await fx.ctx.call('GET', `/content/${TEAM}?id=pages/ai`)).body
    expect(live.__publishedBy).toBe('u-editor')
    expect(live['@metadata'].published).toBe(true)
    expect(await versions('pages/ai')).toHaveLength(1)
    expect(await publishedOk()).toBe(okBefore + 1)
    // No webhook is configured yet: the event is written once a webhook subscribes (below).
    await client.close()
  })

  test('with a subscribed webhook, an assistant publish writes content.published with the acting user and the page URL', async () => {
    const hook = await fx.ctx.call('POST', `/teams/${TEAM}/webhooks`, { body: { label: 'site', provider: 'custom', target: 'https://example.com/hook', events: ['content.published'] } })
    expect(hook.status).toBe(201)
    await draft('pages/ai2', 'Second', 'ai-two')
    const client = await connect(TOKENS.editor)
    const result = await client.callTool({ name: 'publish_content', arguments: { ids: ['pages/ai2'] } })
    expect(result.isError).toBeFalsy()
    const events = await eventsOf('pages/ai2')
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ v: 2, eventType: 'content.published', status: 'published', userId: 'u-editor', documentId: 'pages/ai2', url: '/ai-two', urls: { en: '/ai-two' }, locales: ['en'], scope: 'document' })
    await client.close()
  })

  test('get_content reads a document; unknown, hostile and oversized ids are refusals with the api codes', async () => {
    const client = await connect(TOKENS.translator)
    const read = await client.callTool({ name: 'get_content', arguments: { id: 'pages/home' } })
    expect(read.isError).toBeFalsy()
    expect((read.structuredContent as any).document).toMatchObject({ id: 'pages/home', contentType: 'page', '@metadata': { '@collection': 'pages', published: true } })
    expect(refusal(await client.callTool({ name: 'get_content', arguments: { id: 'pages/nothing-here' } }))).toEqual({ error: 'not_found', message: 'Document not found.' })
    // As GET /content answers: an id that cannot exist is an unknown document.
    expect(refusal(await client.callTool({ name: 'get_content', arguments: { id: '../../etc/passwd' } }))).toEqual({ error: 'not_found', message: 'Document not found.' })
    expect((await fx.ctx.call('GET', `/content/${TEAM}?id=../../etc/passwd`)).status).toBe(404)
    expect(refusal(await client.callTool({ name: 'get_content', arguments: { id: 'x'.repeat(10_000) } }))).toEqual({ error: 'not_found', message: 'Document not found.' })
    expect(refusal(await client.callTool({ name: 'get_content', arguments: { id: 5 } }))).toMatchObject({ error: 'invalid_body', message: expect.stringContaining('`id`') })
    await client.close()
  })

  test('list_content pages the team as GET /content/list does; wrong arguments are refusals', async () => {
    const client = await connect(TOKENS.translator)
    const rest = (await fx.ctx.call('GET', `/content/list/${TEAM}?pageSize=2`)).body
    const first = await client.callTool({ name: 'list_content', arguments: { pageSize: 2 } })
    expect(first.structuredContent).toEqual(rest)
    const next = await client.callTool({ name: 'list_content', arguments: { pageSize: 2, after: rest.nextAfter } })
    expect(next.structuredContent).toEqual((await fx.ctx.call('GET', `/content/list/${TEAM}?pageSize=2&after=${encodeURIComponent(rest.nextAfter)}`)).body)
    expect((await client.callTool({ name: 'list_content', arguments: { collection: 'products' } })).structuredContent).toEqual({ rows: [], hasMore: false, nextAfter: null })
    expect(refusal(await client.callTool({ name: 'list_content', arguments: { pageSize: 0 } }))).toMatchObject({ error: 'invalid_body', message: expect.stringContaining('`pageSize`') })
    expect(refusal(await client.callTool({ name: 'list_content', arguments: { limit: 5 } }))).toMatchObject({ error: 'invalid_body' })
    // A number as text is no number: "-1" listed the whole team, "3.0" was an SQL error.
    for (const pageSize of ['-1', '500', '0', '3.0', '2']) {
      expect({ pageSize, refusal: refusal(await client.callTool({ name: 'list_content', arguments: { pageSize } })) })
        .toMatchObject({ pageSize, refusal: { error: 'invalid_body', message: expect.stringContaining('`pageSize`') } })
    }
    const { tools } = await client.listTools()
    expect(tools.find((tool) => tool.name === 'list_content')!.inputSchema.properties!.pageSize).toEqual({ type: 'integer', minimum: 1, maximum: 100, description: expect.any(String) })
    await client.close()
  })

  test('a member without ChangeLiveContent may read but not publish: a forbidden refusal, nothing goes live', async () => {
    await draft('pages/not-yet', 'Not yet', 'not-yet')
    const okBefore = await publishedOk()
    const client = await connect(TOKENS.translator)
    const result = await client.callTool({ name: 'publish_content', arguments: { ids: ['pages/not-yet'] } })
    expect(refusal(result)).toEqual({ error: 'forbidden', message: 'Missing capability: ChangeLiveContent.' })
    expect((await fx.ctx.call('GET', `/content/${TEAM}?id=pages/not-yet`)).status).toBe(404)
    expect(await publishedOk()).toBe(okBefore)
    await client.close()
  })

  test('wrong arguments are refusals naming the argument; an unknown tool is a protocol error', async () => {
    const client = await connect(TOKENS.editor)
    expect(refusal(await client.callTool({ name: 'publish_content', arguments: { ids: 'pages/home' } }))).toMatchObject({ error: 'invalid_body', message: expect.stringContaining('`ids`') })
    expect(refusal(await client.callTool({ name: 'publish_content', arguments: { ids: [] } }))).toMatchObject({ error: 'invalid_body' })
    expect(refusal(await client.callTool({ name: 'publish_content', arguments: { ids: ['pages/home'], publishedBy: 'u-other' } }))).toMatchObject({ error: 'invalid_body' })
    expect(refusal(await client.callTool({ name: 'publish_content', arguments: {} }))).toMatchObject({ error: 'invalid_body', message: expect.stringContaining('`ids`') })
    // Said once: the SDK client adds "MCP error -32602: " itself.
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(/^MCP error -32602: Unknown tool: delete_everything/)
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.not.toThrow(/-32602: MCP error/)
    await client.close()
  })

  test('the route keeps the api auth: no token 401, another team 403, as JSON bodies with codes', async () => {
    const headers = { accept: 'application/json, text/event-stream' }
    const anonymous = await fx.ctx.call('POST', `/mcp/${TEAM}`, { token: null, body: INIT, headers })
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toEqual({ error: 'unauthorized', message: expect.any(String) })
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer')
    const outsider = await fx.ctx.call('POST', `/mcp/${TEAM}`, { token: TOKENS.outsider, body: INIT, headers })
    expect(outsider.status).toBe(403)
    expect(outsider.body).toEqual({ error: 'forbidden', message: 'You are not a member of this team.' })
    await expect(connect(TOKENS.outsider)).rejects.toThrow()
    // A member of its own team reaches that team's content only.
    const own = await connect(TOKENS.outsider, 'other')
    expect(refusal(await own.callTool({ name: 'get_content', arguments: { id: 'pages/home' } }))).toMatchObject({ error: 'not_found' })
    await own.close()
  })

  test('malformed JSON is the api 400; GET (no server-sent stream in stateless mode) is 405', async () => {
    const bad = await fx.ctx.call('POST', `/mcp/${TEAM}`, { body: '{"jsonrpc": "2.0",', headers: { accept: 'application/json, text/event-stream' } })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'malformed_json', message: 'The request body is not valid JSON.' })
    const get = await fx.ctx.call('GET', `/mcp/${TEAM}`, { headers: { accept: 'text/event-stream' } })
    expect(get.status).toBe(405)
    expect(get.body).toMatchObject({ error: 'method_not_allowed' })
  })
})
