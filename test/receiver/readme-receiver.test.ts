/**
 * The receiver snippet of docs/webhooks-receiving.md#a-receiver-in-bun, run as a reader copies it:
 * taken from that page itself, with only its port and its `refresh` body filled in, in a
 * project that depends on this package. It must answer as spec.md "Delivery rules" 5 advises:
 * 401 on a bad signature, a final 4xx for a request no retry can fix, 502 when the site's own
 * work fails (so the service retries), and each delivery once.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sign } from '../../core/delivery/sign'
import { collectOutput, makeTestDir, waitFor } from '../helpers'

const root = join(import.meta.dir, '../..')
const dir = makeTestDir('readme-receiver-')
const SECRET = 'a-receiver-secret-of-at-least-32-chars'
// A port free now (the snippet names a fixed one; the test puts this one in its place).
const PORT = (() => {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
})()
let proc: ReturnType<typeof Bun.spawn> & { stdout: ReadableStream<Uint8Array> }
let output: ReturnType<typeof collectOutput>

const snippet = (() => {
  const blocks = [...readFileSync(join(root, 'docs/webhooks-receiving.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
  const found = blocks.filter((b) => b.includes("from 'content-service/receiver'") && b.includes('Bun.serve'))
  expect(found).toHaveLength(1)
  return found[0]!
})()

beforeAll(async () => {
  const fill = (text: string, from: string, to: string) => {
    expect(text).toContain(from) // the page still reads as this test expects
    return text.replace(from, to)
  }
  let code = fill(snippet, 'port: 8787', `port: ${PORT}`)
  // The reader's own work: here it fails for one document, and says what it refreshed.
  code = fill(code, 'async function refresh(event: EventPayload) {}',
    "async function refresh(event: EventPayload) { if (event.documentId === 'fails') throw new Error('cdn down'); console.log('refreshed ' + event.documentId) }")
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(root, join(dir, 'node_modules', 'content-service'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'a-site', type: 'module' }))
  writeFileSync(join(dir, 'receiver.ts'), code)
  proc = Bun.spawn([process.execPath, 'receiver.ts'], { cwd: dir, env: { ...process.env, WEBHOOK_SECRET: SECRET }, stdout: 'pipe', stderr: 'inherit' })
  output = collectOutput(proc.stdout)
  // Up when it answers as the snippet does (a GET has no signature: 401), and still our process.
  for (let i = 0; i < 200 && proc.exitCode === null; i++) {
    const res = await fetch(`http://127.0.0.1:${PORT}/`).catch(() => null)
    if (res && (await res.text()) === 'bad signature' && proc.exitCode === null) return
    await Bun.sleep(25)
  }
  throw new Error(`the documented receiver did not start (exit code ${proc.exitCode})`)
})
afterAll(async () => {
  proc?.kill()
  await proc?.exited
  rmSync(dir, { recursive: true, force: true })
})

const post = (body: string, headers: Record<string, string>) =>
  fetch(`http://127.0.0.1:${PORT}/`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } })
const signed = (body: string, id: string) => post(body, { 'x-service-signature': sign(body, SECRET), 'x-service-delivery': id })
const answer = async (res: Response) => ({ status: res.status, text: await res.text() })

test('the documented receiver: 401 for a bad signature, handled once, then duplicate', async () => {
  const body = JSON.stringify({ v: 2, eventType: 'content.published', documentId: 'pages/about', urls: { en: '/about' }, previousUrls: [], scope: 'document' })
  expect(await answer(await post(body, { 'x-service-signature': sign(body, 'another-secret-of-at-least-32-chars'), 'x-service-delivery': 'd1' }))).toEqual({ status: 401, text: 'bad signature' })
  expect(await answer(await signed(body, 'd1'))).toEqual({ status: 200, text: 'handled' })
  expect(await answer(await signed(body, 'd1'))).toEqual({ status: 200, text: 'duplicate' })
  await waitFor(() => output.text.includes('refreshed pages/about'), 5000, 'the refresh line')
  expect(output.text.match(/refreshed pages\/about/g)).toHaveLength(1) // handled once
})

test('the documented receiver: a signed body that is not JSON is a final 400, not a 502 the service retries', async () => {
  expect(await answer(await signed('not json', 'd2'))).toEqual({ status: 400, text: 'not JSON' })
  // JSON that is no event: refresh() would throw on it, a 502 retried three times.
  for (const [i, body] of ['null', '[1]', '42'].entries()) expect(await answer(await signed(body, `d2-${i}`))).toEqual({ status: 400, text: 'not an event' })
  expect(await answer(await post('{}', { 'x-service-signature': sign('{}', SECRET) }))).toEqual({ status: 400, text: 'no delivery id' })
})

test('the documented receiver: 502 when the site\'s own work fails, and the retry of that delivery runs it again', async () => {
  const body = JSON.stringify({ v: 2, eventType: 'content.published', documentId: 'fails', urls: {}, previousUrls: [], scope: 'document' })
  expect(await answer(await signed(body, 'd3'))).toEqual({ status: 502, text: 'downstream failed' })
  expect(await answer(await signed(body, 'd3'))).toEqual({ status: 502, text: 'downstream failed' })
})
