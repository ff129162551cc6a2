/**
 * A request body must arrive within REQUEST_BODY_TIMEOUT_MS of its headers: a `Content-Length`
 * that promises more than is sent held the request and its connection until the idle timeout
 * (35 s, as long as a webhook test send may wait for its receiver). Raw sockets against the real
 * api process, as a slow or hostile client would send.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connect, type Socket } from 'node:net'
import { spawnApi, TEAM, TOKENS, waitFor } from '../helpers'
import { processDatabase, type ProcessDatabase } from '../process-db'
import { startReceiver, type TestReceiver } from '../test-receiver'

const TIMEOUT_MS = 1000
const MAX_BODY_BYTES = 4096
let store: ProcessDatabase
let port = 0
let api: ReturnType<typeof spawnApi>
let rx: TestReceiver

beforeAll(async () => {
  store = await processDatabase({ prefix: 'body-timeout-' })
  // A receiver slower than the body timeout: a test send must still wait for it.
  rx = startReceiver([{ status: 200, body: 'slow ok', delayMs: 2500 }])
  api = spawnApi({ ...store.env, REQUEST_BODY_TIMEOUT_MS: String(TIMEOUT_MS), MAX_BODY_BYTES: String(MAX_BODY_BYTES), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  port = (await api.listening()).port
})
afterAll(async () => {
  await api.stop()
  rx.stop()
  await store.close()
})

/** A raw connection: what came back so far, when it closed (ms after it opened), and each answer parsed. */
function open() {
  const at = Date.now()
  const conn = { text: '', closedAfter: null as number | null, socket: null as unknown as Socket }
  conn.socket = connect(port, '127.0.0.1')
  conn.socket.on('data', (d) => (conn.text += d))
  conn.socket.on('error', () => {})
  conn.socket.on('close', () => (conn.closedAfter = Date.now() - at))
  const answers = () => conn.text.split(/(?=HTTP\/1\.1 )/).filter(Boolean).map((one) => {
    const [head, body = ''] = one.split('\r\n\r\n')
    return { status: Number(head!.split(' ')[1]), close: /\r\nconnection: close/i.test(head!), type: /\r\ncontent-type: ([^\r;]+)/i.exec(head!)?.[1], body }
  })
  return { conn, at, answers, write: (s: string) => conn.socket.write(s) }
}

const head = (path: string, headers: string, token: string | null = TOKENS.editor) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}Content-Type: application/json\r\n${headers}\r\n`

test('a Content-Length that promises more than is sent: 408 request_timeout after REQUEST_BODY_TIMEOUT_MS, and the connection closes', async () => {
  const c = open()
  c.write(head(`/content/${TEAM}`, 'Content-Length: 100\r\n') + '{"id":')
  await waitFor(() => c.conn.closedAfter !== null, 5000, 'the connection closed')
  expect(c.answers()).toEqual([{ status: 408, close: true, type: 'application/json', body: expect.any(String) }])
  expect(JSON.parse(c.answers()[0]!.body)).toEqual({ error: 'request_timeout', message: `The request body did not arrive in full within ${TIMEOUT_MS} ms of its headers.` })
  expect(c.conn.closedAfter!).toBeGreaterThanOrEqual(TIMEOUT_MS - 50)
  expect(c.conn.closedAfter!).toBeLessThan(TIMEOUT_MS + 2000)
})

test('a chunked body that never ends: the same 408, the connection closed', async () => {
  const c = open()
  c.write(head(`/content/${TEAM}`, 'Transfer-Encoding: chunked\r\n') + '6\r\n{"id":\r\n')
  await waitFor(() => c.conn.closedAfter !== null, 5000, 'the connection closed')
  expect(c.answers().map(({ status, close }) => ({ status, close }))).toEqual([{ status: 408, close: true }])
  expect(JSON.parse(c.answers()[0]!.body).error).toBe('request_timeout')
})

test('a body declared larger than MAX_BODY_BYTES is 413 at once, unread, and its connection closes; a chunked one too, read only past the limit', async () => {
  const declared = open()
  declared.write(head(`/content/${TEAM}`, `Content-Length: ${MAX_BODY_BYTES + 1}\r\n`) + '{"id":')
  await waitFor(() => declared.conn.closedAfter !== null, 5000, 'the connection closed')
  expect(declared.answers().map(({ status, close }) => ({ status, close }))).toEqual([{ status: 413, close: true }])
  expect(declared.conn.closedAfter!).toBeLessThan(TIMEOUT_MS)

  const chunked = open()
  const chunk = `{"pad":"${'x'.repeat(MAX_BODY_BYTES)}`
  chunked.write(head(`/content/${TEAM}`, 'Transfer-Encoding: chunked\r\n') + `${chunk.length.toString(16)}\r\n${chunk}\r\n`) // and never the end
  await waitFor(() => chunked.conn.closedAfter !== null, 5000, 'the connection closed')
  expect(chunked.answers().map(({ status, close }) => ({ status, close }))).toEqual([{ status: 413, close: true }])
  expect(JSON.parse(chunked.answers()[0]!.body)).toEqual({ error: 'payload_too_large', message: `The body exceeds ${MAX_BODY_BYTES} bytes.` })
  expect(chunked.conn.closedAfter!).toBeLessThan(TIMEOUT_MS)
})

test('no token and a body that never comes: the body deadline answers (408), not the idle timeout', async () => {
  const c = open()
  c.write(head(`/content/${TEAM}`, 'Content-Length: 100\r\n', null) + '{"id":')
  await waitFor(() => c.conn.closedAfter !== null, 5000, 'the connection closed')
  expect(c.answers().map(({ status, close }) => ({ status, close }))).toEqual([{ status: 408, close: true }])
})

test('a whole body keeps its connection: two requests on one, and a body sent slowly but within the time is read', async () => {
  const c = open()
  const doc = JSON.stringify({ id: 'pages/kept', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'Kept', slug: 'kept' } } })
  c.write(head(`/content/${TEAM}`, `Content-Length: ${doc.length}\r\n`) + doc.slice(0, 10))
  await Bun.sleep(TIMEOUT_MS / 2)
  c.write(doc.slice(10))
  await waitFor(() => c.answers().length === 1 && c.answers()[0]!.body.length > 0, 5000, 'the first answer')
  c.write(head(`/content/${TEAM}`, `Content-Length: ${doc.length}\r\n`) + doc)
  await waitFor(() => c.answers().length === 2 && c.answers()[1]!.body.length > 0, 5000, 'the second answer')
  expect(c.answers().map(({ status, close }) => ({ status, close }))).toEqual([{ status: 200, close: false }, { status: 200, close: false }])
  expect(c.conn.closedAfter).toBeNull()
  c.conn.socket.destroy()
})

test('a webhook test send with a body still waits for a receiver slower than REQUEST_BODY_TIMEOUT_MS', async () => {
  const call = (path: string, body: unknown) => fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${TOKENS.webhooks}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  })
  const hook = await (await call(`/teams/${TEAM}/webhooks`, { label: 'slow', provider: 'custom', target: rx.url })).json() as { id: string }
  const res = await call(`/teams/${TEAM}/webhooks/${hook.id}/test`, {})
  expect({ status: res.status, body: await res.json() }).toEqual({
    status: 200, body: { delivered: true, status: 200, responseBody: 'slow ok', durationMs: expect.any(Number) },
  })
})
