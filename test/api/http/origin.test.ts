import { expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { origin } from '../../../api/http/origin'
import { createLogger } from '../../../core/log'

const app = new Elysia().use(origin(createLogger('silent', 'test'))).post('/mcp/:team', () => 'reached').post('/content/:team', () => 'reached')
const send = (path: string, headers: Record<string, string>) => app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers }))

test('an MCP request from another origin, or from a null or non-http one, is 403 forbidden before anything else', async () => {
  for (const value of ['http://evil.example', 'null', 'file://x', 'http://localhost:3000']) {
    const res = await send('/mcp/acme', { origin: value, host: 'localhost' })
    expect({ value, status: res.status, body: await res.json() }).toEqual({
      value, status: 403,
      body: { error: 'forbidden', message: 'This MCP server answers browser pages of its own origin only (Origin must match Host); MCP clients outside a browser send no Origin.' },
    })
  }
})

test('no Origin (a client outside a browser) or the same origin reaches the route; other routes never look', async () => {
  for (const headers of <Record<string, string>[]>[{}, { origin: 'http://localhost', host: 'localhost' }, { origin: 'http://localhost:80', host: 'localhost' }]) {
    expect(await (await send('/mcp/acme', headers)).text()).toBe('reached')
  }
  expect(await (await send('/content/acme', { origin: 'http://evil.example' })).text()).toBe('reached')
})
