/**
 * The MCP server for AI assistants (`POST /mcp/{activeTeam}`), driven by the official MCP
 * client over the app's real HTTP handling: what a connected assistant sees and does.
 */
import { sqliteOf, sqliteOnly } from '../dialect'
import { describe, expect, test } from 'bun:test'
import { holdWriteLock, TEAM, TOKENS } from '../helpers'
import { BUSY_REASON } from '../../core/batch'
import { assistantFixture, INIT, refusal } from './assistant-fixture'

const lockTest = sqliteOnly('bun:sqlite write lock and busy_timeout; PostgreSQL has no database-wide write lock').test

const fx = assistantFixture()
const { connect, draft, versions } = fx

const call = (name: string, args: unknown, id = 7) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })

describe('MCP requests the route refuses or serves plainly', () => {
  test('a JSON-RPC batch is refused before anything runs: it would step around the 100-id publish limit', async () => {
    await draft('pages/batched', 'Batched', 'batched')
    const batch = [call('publish_content', { ids: ['pages/batched'] }, 1), call('publish_content', { ids: ['pages/batched'] }, 2)]
    for (const body of [batch, []]) {
      const res = await fx.ctx.call('POST', `/mcp/${TEAM}`, { body, headers: { accept: 'application/json, text/event-stream' } })
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: expect.stringContaining('batches are not taken') } })
    }
    // Authorisation still comes first: an outsider learns nothing about the body rules, whichever refuses it.
    for (const body of [batch, { ...INIT, id: 1.5 }, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, { hello: 1 }]) {
      const res = await fx.ctx.call('POST', `/mcp/${TEAM}`, { token: TOKENS.outsider, body })
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 403, error: 'forbidden' })
    }
    expect((await fx.ctx.call('GET', `/content/${TEAM}?id=pages/batched`)).status).toBe(404)
    expect(await versions('pages/batched')).toEqual([])
  })

  test('arguments that are not an object, and a message that is not JSON-RPC, are 400 invalid_body naming the field', async () => {
    for (const [body, at] of [[call('get_content', null), '/params/arguments'], [call('get_content', ['pages/home']), '/params/arguments'], [{ hello: 1 }, '`jsonrpc` is required.'], [null, '']] as const) {
      const res = await fx.ctx.call('POST', `/mcp/${TEAM}`, { body: JSON.stringify(body), headers: { accept: 'application/json, text/event-stream' } })
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_body' })
      expect(res.body.message).toContain(at)
    }
  })

  test('Origin (MCP transport spec): a page of another origin is 403 before anything else; its own origin and no Origin are served', async () => {
    const post = (headers: Record<string, string>, token?: string | null) => fx.ctx.call('POST', `/mcp/${TEAM}`, { body: INIT, headers, token })
    for (const [origin, host] of [['http://evil.example', undefined], ['null', undefined], ['http://localhost:3001', 'localhost:3000'], ['file:///x', undefined], ['http://127.0.0.1', 'localhost'], ['https://localhost', 'localhost:80']] as const) {
      const headers: Record<string, string> = host ? { origin, host } : { origin }
      for (const token of [undefined, null, TOKENS.outsider]) {
        const res = await post(headers, token)
        expect({ origin, token, status: res.status, body: res.body }).toEqual({ origin, token, status: 403, body: { error: 'forbidden', message: expect.stringContaining('Origin must match Host') } })
      }
    }
    // A Host with the scheme's default port (a proxy passing `$http_host`) is the same host as the origin without it.
    for (const headers of [{ origin: 'http://localhost' }, { origin: 'http://localhost:3000', host: 'localhost:3000' }, { origin: 'https://CMS.example.com', host: 'cms.example.com' }, { origin: 'http://localhost', host: 'localhost:80' }, { origin: 'https://cms.example.com', host: 'cms.example.com:443' }, {}] as Record<string, string>[]) {
      const res = await post(headers)
      expect({ headers, status: res.status }).toEqual({ headers, status: 200 })
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'content-service' } } })
    }
  })

  test("ids, tool calls and JSON media types the SDK would answer in JSON-RPC's shape are the api's 400 invalid_body, or served", async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) => fx.ctx.call('POST', `/mcp/${TEAM}`, { body: JSON.stringify(body), headers })
    for (const [body, says] of [
      [{ jsonrpc: '2.0', id: 1.5, method: 'tools/list' }, '`id`'],
      [{ jsonrpc: '2.0', id: 1e308, method: 'tools/list' }, '`id`'],
      [{ jsonrpc: '2.0', id: 2 ** 60, method: 'ping' }, 'loses digits'],
      [{ jsonrpc: '2.0', id: 1, result: {} }, 'takes no JSON-RPC responses'],
      [{ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } }, 'takes no JSON-RPC responses'],
      [{ jsonrpc: '2.0', id: 'i'.repeat(201), method: 'tools/list' }, '`id`'],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, '`params.name`'],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } }, '`params.name`'],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 5 } }, '`params._meta`'],
      [{ jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: [] } }, '`params._meta`'],
    ] as const) {
      const res = await post(body)
      expect({ body, status: res.status, error: res.body.error, says: res.body.message?.includes(says) }).toEqual({ body, status: 400, error: 'invalid_body', says: true })
    }
    const vendor = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'content-type': 'application/vnd.acme+json' })
    expect({ status: vendor.status, tools: vendor.body.result?.tools?.length }).toEqual({ status: 200, tools: 3 })
  })

  test('params of the wrong shape are JSON-RPC -32602 (invalid params) naming the field, not -32603 with a validator dump', async () => {
    const post = (body: unknown) => fx.ctx.call('POST', `/mcp/${TEAM}`, { body: JSON.stringify(body) })
    for (const [method, params, field] of [
      ['initialize', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'c', version: '1' } }, 'params.protocolVersion'],
      ['initialize', { protocolVersion: '2025-06-18', capabilities: {} }, 'params.clientInfo'],
      ['tools/list', { cursor: 5 }, 'params.cursor'],
    ] as const) {
      const res = await post({ jsonrpc: '2.0', id: 7, method, params })
      expect({ method, status: res.status, body: res.body }).toEqual({
        method, status: 200, body: { jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringMatching(new RegExp(`^Invalid params: ${field.replace('.', '\\.')}: `)) } },
      })
    }
    // Well-formed ones are still the SDK's to answer.
    expect((await post({ jsonrpc: '2.0', id: 8, method: 'ping' })).body).toEqual({ jsonrpc: '2.0', id: 8, result: {} })
    expect((await post({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: { cursor: 'x' } })).body).toMatchObject({ jsonrpc: '2.0', id: 9, result: { tools: expect.any(Array) } })
  })

  test('any Accept is answered JSON: a generated client sending application/json only gets the answer, not 406', async () => {
    for (const accept of ['application/json', '*/*', null]) {
      const res = await fx.ctx.call('POST', `/mcp/${TEAM}`, { body: INIT, headers: accept ? { accept } : {} })
      expect({ accept, status: res.status, type: res.headers.get('content-type') }).toEqual({ accept, status: 200, type: expect.stringContaining('application/json') })
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'content-service' } } })
    }
  })

  lockTest("another process's write lock: reads answer at once; a publish waits, then answers busy and publishes nothing", async () => {
    await draft('pages/locked', 'Locked', 'locked')
    const client = await connect(TOKENS.editor)
    const other = holdWriteLock(fx.ctx.path)
    sqliteOf(fx.ctx.db).$client.exec('PRAGMA busy_timeout = 300')
    try {
      const t = performance.now()
      expect((await client.listTools()).tools).toHaveLength(3)
      expect((await client.callTool({ name: 'list_content', arguments: {} })).isError).toBeFalsy()
      expect((await client.callTool({ name: 'get_content', arguments: { id: 'pages/home' } })).isError).toBeFalsy()
      expect(performance.now() - t).toBeLessThan(250) // no wait for the lock
      const busy = refusal(await client.callTool({ name: 'publish_content', arguments: { ids: ['pages/locked'] } }))
      expect(busy).toEqual({ error: 'busy', message: 'The database stayed locked by another write (e.g. a large seed). Try again shortly.' })
    } finally {
      other.release()
      sqliteOf(fx.ctx.db).$client.exec('PRAGMA busy_timeout = 10000')
    }
    expect((await fx.ctx.call('GET', `/content/${TEAM}?id=pages/locked`)).status).toBe(404)
    const done = await client.callTool({ name: 'publish_content', arguments: { ids: ['pages/locked'] } })
    expect((done.structuredContent as any).results[0].status).toBe(0)
    await client.close()
  })

  lockTest('a lock taken after the first item and held past the timeout: that item and the rest are busy refusals, the published one named', async () => {
    await draft('pages/lock-a', 'A', 'lock-a')
    await draft('pages/lock-b', 'B', 'lock-b')
    const client = await connect(TOKENS.editor)
    let other: ReturnType<typeof holdWriteLock> | null = null
    const inc = fx.ctx.metrics.apiPublishRevisions.inc.bind(fx.ctx.metrics.apiPublishRevisions)
    fx.ctx.metrics.apiPublishRevisions.inc = ((...args: Parameters<typeof inc>) => {
      other ??= holdWriteLock(fx.ctx.path) // another process (a seed) takes the lock after the first publish
      return inc(...args)
    }) as typeof inc
    sqliteOf(fx.ctx.db).$client.exec('PRAGMA busy_timeout = 100')
    try {
      const res = await client.callTool({ name: 'publish_content', arguments: { ids: ['pages/lock-a', 'pages/lock-b'] } })
      expect(res.structuredContent).toEqual({ results: [
        { id: 'pages/lock-a', status: 0, document: expect.objectContaining({ id: 'pages/lock-a' }) },
        { id: 'pages/lock-b', status: 1, reason: BUSY_REASON },
      ] })
    } finally {
      fx.ctx.metrics.apiPublishRevisions.inc = inc
      ;(other as ReturnType<typeof holdWriteLock> | null)?.release()
      sqliteOf(fx.ctx.db).$client.exec('PRAGMA busy_timeout = 10000')
      await client.close()
    }
  })
})
