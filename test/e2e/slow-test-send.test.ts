/**
 * A webhook test send answers only when the receiver has (up to WEBHOOK_TIMEOUT_MS, 30 s by
 * default), so the api's connection must outlast Bun's default idle timeout of 10 s: before,
 * a receiver taking 11 s got the caller an empty reply (the attempt was logged as delivered),
 * and SIGTERM stopped the api without answering. The real api process, a real receiver.
 */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { seed } from '../../cli/seed'
import { makeTestDir, spawnApi, TEAM, testSeed, TOKENS } from '../helpers'
import { startReceiver } from '../test-receiver'

const dir = makeTestDir('slow-test-send-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a test send to a receiver slower than Bun\'s 10 s idle timeout answers its result, and SIGTERM meanwhile waits for it', async () => {
  const path = join(dir, 'content.db')
  const db = openDb(path)
  await seed(db, null, testSeed())
  db.$client.close()
  const rx = startReceiver([{ status: 200, body: 'slow ok', delayMs: 15_000 }])
  const api = spawnApi({ DATABASE_PATH: path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
  try {
    const { port } = await api.listening()
    const call = (method: string, url: string, body?: unknown) => fetch(`http://127.0.0.1:${port}${url}`, {
      method, headers: { authorization: `Bearer ${TOKENS.webhooks}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}),
    })
    const hook = await (await call('POST', `/teams/${TEAM}/webhooks`, { label: 'slow', provider: 'custom', target: rx.url })).json() as { id: string }
    const started = Date.now()
    const sent = call('POST', `/teams/${TEAM}/webhooks/${hook.id}/test`).then(async (res) => ({ status: res.status, body: await res.json() as Record<string, unknown> }))
    await Bun.sleep(500)
    const exited = api.stop() // SIGTERM while the test send waits for the receiver
    const res = await sent
    expect(res).toMatchObject({ status: 200, body: { delivered: true, status: 200, responseBody: 'slow ok' } })
    expect(res.body.durationMs).toBeGreaterThanOrEqual(14_900)
    expect(await exited).toBe(0)
    expect(Date.now() - started).toBeGreaterThanOrEqual(15_000)
  } finally {
    rx.stop()
    api.proc.kill()
  }
}, 40_000)
