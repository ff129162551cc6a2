/** The dispatcher loop driven in-process with `runOnce(now)` and a hand-moved clock. */
import { row } from '../rows'
import { expect, test } from 'bun:test'
import { TEAM, TOKENS, waitFor } from '../helpers'
import { startReceiver } from '../test-receiver'
import { dueSchedules, publishDue } from '../../core/publish/scheduled'
import { createLogger } from '../../core/log'
import { loopFixture, page } from './loop-fixture'

const fx = loopFixture()
const { dispatcher, payloads, publish } = fx

test('a slow receiver does not hold back another webhook', async () => {
  const slow = startReceiver([{ status: 200, delayMs: 1500 }])
  try {
    await fx.ctx.call('PATCH', `/teams/${TEAM}/webhooks/${fx.hook.id}`, { token: TOKENS.webhooks, body: { target: slow.url } })
    const fast = startReceiver()
    await fx.ctx.call('POST', `/teams/${TEAM}/webhooks`, { token: TOKENS.webhooks, body: { label: 'fast', provider: 'custom', target: fast.url } })
    const d = dispatcher({ now: Date.now })
    d.start()
    const t0 = Date.now()
    await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
    while (fast.requests.length === 0 && Date.now() - t0 < 3000) await Bun.sleep(10)
    expect(Date.now() - t0).toBeLessThan(1000)
    await d.stop() // waits for the slow send in flight
    expect(slow.requests).toHaveLength(1)
    fast.stop()
  } finally {
    slow.stop()
  }
})

test('log lines carry eventId and webhookId, never the secret, signature or a provider token', async () => {
  const lines: string[] = []
  const log = createLogger('info', 'dispatcher', { write: (l: string) => void lines.push(l) })
  fx.rx.answers = [{ status: 500 }, { status: 200 }]
  await fx.ctx.call('POST', `/teams/${TEAM}/webhooks`, {
    token: TOKENS.webhooks, body: { label: 'gh', provider: 'github', target: 'https://api.github.com/repos/a/b/dispatches', options: { token: 'ghp_never_logged' } },
  })
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  // GitHub itself is never called from tests: its requests are answered here.
  const stubGithub = (async (url: string | URL | Request, init?: RequestInit) =>
    String(url).startsWith('https://api.github.com/') ? new Response(null, { status: 204 }) : fetch(url, init)) as typeof fetch
  const d = dispatcher({ log, fetch: stubGithub })
  await d.runOnce(fx.clock)
  await d.runOnce(fx.clock + 2000)
  const text = lines.join('')
  const signature = fx.rx.requests[0]!.headers['x-service-signature']!
  expect(text).toContain('"eventId"')
  expect(text).toContain('"webhookId"')
  expect(text).toContain('"component":"delivery"')
  for (const secret of [fx.hook.secret, signature, signature.slice(7), 'ghp_never_logged']) expect(text).not.toContain(secret)
})

test('a webhook deleted during a send: its answer is dropped with an info line, not a lost-lease warning', async () => {
  const lines: string[] = []
  const log = createLogger('info', 'dispatcher', { write: (l: string) => void lines.push(l) })
  fx.rx.answers = [{ status: 200, delayMs: 300 }]
  await publish(page('pages/a', 'pages/home', { en: { title: 'A', slug: 'a' } }))
  const sending = dispatcher({ log }).runOnce(fx.clock)
  await waitFor(() => fx.rx.requests.length > 0, 5000, 'the send reached the receiver')
  expect((await fx.ctx.call('DELETE', `/teams/${TEAM}/webhooks/${fx.hook.id}`, { token: TOKENS.webhooks })).status).toBe(204)
  await sending
  const entries = lines.map((l) => JSON.parse(l)).filter((l) => l.component === 'delivery')
  expect(entries.map((l) => [l.level, l.msg, l.outcome])).toEqual([[30, 'the webhook was deleted during the send; the attempt is not recorded', 'dropped']])
  expect((await row(fx.ctx.db, 'SELECT COUNT(*) AS n FROM delivery_attempts'))).toEqual({ n: 0 })
})

test('every log line carries exactly one component: dispatcher, or delivery with eventId and webhookId', async () => {
  const lines: string[] = []
  const log = createLogger('info', 'dispatcher', { write: (l: string) => void lines.push(l) })
  fx.rx.answers = [{ status: 500 }, { status: 200 }]
  await publish(page('pages/c', 'pages/home', { en: { title: 'C', slug: 'c' } }))
  const at = new Date(fx.clock + 500).toISOString()
  expect((await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/c', publishAt: at } })).status).toBe(201)
  const d = dispatcher({ log })
  await d.runOnce(fx.clock) // attempt 1 answered 500: retry
  await d.runOnce(fx.clock + 2000) // the scheduled publish, attempt 2 delivered, the scheduled one's event
  expect(lines.length).toBeGreaterThanOrEqual(4)
  const seen = lines.map((line) => {
    // JSON.parse keeps the last of two equal keys, so count them in the raw text.
    const keys = line.match(/"component":/g)?.length ?? 0
    const { component, eventId, webhookId, msg } = JSON.parse(line)
    return { keys, component, hasIds: typeof eventId === 'string' && webhookId === fx.hook.id, msg }
  })
  for (const s of seen) expect(s).toEqual({ keys: 1, component: s.component, hasIds: s.component === 'delivery', msg: s.msg })
  expect(seen.map((s) => [s.component, s.msg])).toEqual(expect.arrayContaining([
    ['delivery', 'webhook attempt failed, will retry'], ['delivery', 'webhook delivered'], ['dispatcher', 'scheduled publish'],
  ]))
})

test('a scheduled publish is reported with userId null', async () => {
  await publish(page('pages/s', 'pages/home', { en: { title: 'S', slug: 's' } }))
  await dispatcher().runOnce(fx.clock)
  fx.rx.requests.length = 0
  await fx.ctx.call('POST', `/content/${TEAM}`, { body: page('pages/s/draft', 'pages/home', { en: { title: 'S2', slug: 's2' } }) })
  const at = new Date(fx.clock + 60_000).toISOString()
  expect((await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/s', publishAt: at } })).status).toBe(201)
  await dispatcher().runOnce(fx.clock + 60_000)
  await dispatcher().runOnce(fx.clock + 60_000)
  expect(payloads().map(({ eventType, userId, documentId, urls, previousUrls }) => ({ eventType, userId, documentId, urls, previousUrls }))).toEqual([
    { eventType: 'content.published', userId: null, documentId: 'pages/s', urls: { en: '/s2' }, previousUrls: ['/s'] },
  ])
})

test('schedules due together publish a page after its parent, so the child\'s event names its path', async () => {
  await fx.ctx.call('POST', `/content/${TEAM}`, { body: page('pages/sp/draft', 'pages/home', { en: { title: 'Section', slug: 'sp' } }) })
  await fx.ctx.call('POST', `/content/${TEAM}`, { body: page('pages/sk/draft', 'pages/sp', { en: { title: 'Kid', slug: 'kid' } }) })
  const at = new Date(fx.clock + 60_000).toISOString()
  // The child scheduled first: claimed first, it was published first, while its parent was not live.
  for (const id of ['pages/sk', 'pages/sp']) expect((await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id, publishAt: at } })).status).toBe(201)
  await dispatcher().runOnce(fx.clock + 60_000)
  await dispatcher().runOnce(fx.clock + 60_000)
  expect(payloads().map(({ documentId, urls, scope }) => ({ documentId, urls, scope }))).toEqual([
    { documentId: 'pages/sp', urls: { en: '/sp' }, scope: 'document' },
    { documentId: 'pages/sk', urls: { en: '/sp/kid' }, scope: 'document' },
  ])
})

test('a schedule replaced between the read of due schedules and its publish is not published early, then once at its new time', async () => {
  await publish(page('pages/r', 'pages/home', { en: { title: 'R1', slug: 'r' } }))
  const schedule = async (title: string, at: number) => {
    await fx.ctx.call('POST', `/content/${TEAM}`, { body: page('pages/r/draft', 'pages/home', { en: { title, slug: 'r' } }) })
    expect((await fx.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/r', publishAt: new Date(at).toISOString() } })).status).toBe(201)
  }
  await schedule('R2', fx.clock + 60_000)
  // The dispatcher reads it as due; before its publish transaction, an editor reschedules with new content.
  const due = await dueSchedules(fx.ctx.db, fx.clock + 60_000)
  expect(due.map((s) => s.documentId)).toEqual(['pages/r'])
  await schedule('R3', fx.clock + 120_000)
  expect(await publishDue(fx.ctx.db, null, due[0]!, fx.clock + 60_000)).toBeNull()
  const live = async () => {
    const res = await fx.ctx.call('GET', `/content/versions/${TEAM}?id=pages/r`)
    return { title: (await fx.ctx.call('GET', `/content/${TEAM}?id=pages/r`)).body.locales.en.title, versions: res.body.rows.length }
  }
  expect(await live()).toEqual({ title: 'R1', versions: 1 })
  await dispatcher().runOnce(fx.clock + 120_000)
  await dispatcher().runOnce(fx.clock + 200_000)
  expect(await live()).toEqual({ title: 'R3', versions: 2 })
})

/** A receiver answering after `delayMs`, recording how many requests it had open at most. */