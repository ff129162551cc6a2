/**
 * Requests as they come off the wire, to the real api process: an HTTP/1.0 health check without
 * `Host` (HAProxy's default `httpchk`), and a `Host` that is no host. Bun hands such a request's
 * URL over as the path alone; parsing it as a whole URL threw, and every route, `/health` too,
 * answered Bun's HTML error page with a stack trace. And a short `Host` (`api`, as a proxy in front
 * of a compose service sends it): Elysia looked for the path from index 11 of the URL, so every
 * route answered 404.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { spawnApi, TEAM, TOKENS } from '../helpers'
import { processDatabase, type ProcessDatabase } from '../process-db'

let store: ProcessDatabase
let port = 0
let api: ReturnType<typeof spawnApi>

beforeAll(async () => {
  store = await processDatabase({ prefix: 'raw-http-' })
  // Not NODE_ENV=production: Bun's development error page is what leaked the stack trace.
  const { NODE_ENV: _, ...env } = process.env
  api = spawnApi(store.env, { baseEnv: env })
  port = (await api.listening()).port
})
afterAll(async () => {
  await api.stop()
  await store.close()
})

/** Sends `head` as written (no client fixes it up) and answers the status line, the content type and the body. */
function raw(head: string): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head))
    let text = ''
    socket.on('data', (d) => (text += d))
    socket.on('error', reject)
    socket.on('close', () => {
      const [top, body = ''] = text.split('\r\n\r\n')
      const type = /\r\ncontent-type: ([^\r]+)/i.exec(top!)?.[1]
      resolve({ status: Number(top!.split(' ')[1]), type, body })
    })
  })
}

const auth = `Authorization: Bearer ${TOKENS.editor}\r\n`

test('an HTTP/1.0 health check without Host is answered ok', async () => {
  expect(await raw('GET /health HTTP/1.0\r\n\r\n')).toEqual({ status: 200, type: expect.stringMatching(/^application\/json/), body: '{"status":"ok"}' })
})

test.each([
  ['none (HTTP/1.0)', 'HTTP/1.0', ''],
  ['not a host', 'HTTP/1.1', 'Host: a b\r\n'],
  ['a port out of range', 'HTTP/1.1', 'Host: x:99999\r\n'],
  // Elysia read the path from index 11 of the URL on: `http://api/...` routed nothing (404).
  ['of three letters (a compose service name)', 'HTTP/1.1', 'Host: api\r\n'],
  ['of one letter with the default port', 'HTTP/1.1', 'Host: x:80\r\n'],
  ['of three characters with a dot', 'HTTP/1.1', 'Host: a.b\r\n'],
])('Host %s: routes answer as usual, in JSON', async (_, version, host) => {
  const get = (target: string, headers = auth) => raw(`GET ${target} ${version}\r\n${host}${headers}Connection: close\r\n\r\n`)
  const doc = await get(`/content/${TEAM}?id=pages/home`)
  expect({ status: doc.status, type: doc.type, id: JSON.parse(doc.body).id }).toEqual({ status: 200, type: expect.stringMatching(/^application\/json/), id: 'pages/home' })
  const health = await get('/health', '')
  expect({ status: health.status, body: health.body }).toEqual({ status: 200, body: '{"status":"ok"}' })
  for (const [target, headers, status, error] of [
    [`/content/${TEAM}?id=pages/none`, auth, 404, 'not_found'],
    [`/content/${TEAM}?id=pages/home`, '', 401, 'unauthorized'],
    ['/no/such/route', auth, 404, 'not_found'],
    [`/content/versions/${TEAM}?id=a&id=b`, auth, 400, 'invalid_body'],
  ] as const) {
    const res = await get(target, headers)
    expect({ target, status: res.status, type: res.type, error: JSON.parse(res.body).error }).toEqual({ target, status, type: expect.stringMatching(/^application\/json/), error })
  }
  // A POST (body read, MCP's own Request rebuilt from the URL) too.
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  const mcp = await raw(`POST /mcp/${TEAM} ${version}\r\n${host}${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
  expect({ status: mcp.status, tools: JSON.parse(mcp.body).result?.tools?.length }).toEqual({ status: 200, tools: 3 })
})

test('a GET\'s body is never read: a text or compressed one is answered as without it (the OpenAPI document declares no 415 on a GET), a DELETE\'s is 415', async () => {
  const body = 'hello'
  for (const headers of ['Content-Type: text/plain\r\n', 'Content-Type: application/json\r\nContent-Encoding: gzip\r\n']) {
    const get = await raw(`GET /content/versions/${TEAM}?id=pages/home HTTP/1.1\r\nHost: x\r\n${auth}${headers}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
    expect({ headers, status: get.status, rows: JSON.parse(get.body).rows?.length }).toEqual({ headers, status: 200, rows: 1 })
  }
  const del = await raw(`DELETE /teams/${TEAM}/webhooks/nope HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
  expect({ status: del.status, error: JSON.parse(del.body).error }).toEqual({ status: 415, error: 'unsupported_media_type' })
})

test('nothing of it reached stderr as a stack trace, or the log as an error', async () => {
  // Sent here too, so the check means something when this test runs alone.
  expect((await raw(`GET /content/${TEAM}?id=pages/home HTTP/1.1\r\nHost: a b\r\n${auth}Connection: close\r\n\r\n`)).status).toBe(200)
  expect((await raw('GET /health HTTP/1.0\r\n\r\n')).status).toBe(200)
  await Bun.sleep(100)
  expect(api.stderr.text).toBe('')
  expect(api.stdout.text).not.toMatch(/"level":50/)
})
