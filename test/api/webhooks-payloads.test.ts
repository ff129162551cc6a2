import { editBody, payloadOf, payloadText, row, run } from '../rows'
import { sqliteOf, sqliteOnly } from '../dialect'
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createTestContext, TEAM, TOKENS, waitFor } from '../helpers'
import { enqueueEvent, MAX_EVENT_BYTES } from '../../core/events/record'
import { samplePayload } from '../../core/webhooks/deliveries'
import { startReceiver } from '../test-receiver'
import { base, webhooksFixture } from './webhooks-fixture'

const fx = webhooksFixture()
const { create, loggedPayloads } = fx

test('an update that changes nothing (`{}`, the record sent back, the same secret) keeps updatedAt; a change moves it', async () => {
  const secret = 'a-secret-of-at-least-thirty-two-characters'
  const hook = (await create({ label: 'Same', provider: 'custom', target: fx.rx.url, secret })).body
  await Bun.sleep(5)
  const patch = (body: Record<string, unknown>) => fx.ctx.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body })
  for (const body of [{}, { label: 'Same', target: fx.rx.url, events: hook.events }, { secret }]) {
    const res = await patch(body)
    expect({ status: res.status, updatedAt: res.body.updatedAt }).toEqual({ status: 200, updatedAt: hook.updatedAt })
  }
  expect((await fx.ctx.call('GET', `${base}/${hook.id}`, { token: TOKENS.webhooks })).body.updatedAt).toBe(hook.updatedAt)
  const renamed = await patch({ label: 'Renamed' })
  expect(renamed.body.updatedAt > hook.updatedAt).toBe(true)
})

test('an event whose paths would pass 1 MiB is stored without them, scope "site" (a receiver would refuse it: a final 413)', async () => {
  const hook = (await create({ label: 'big', provider: 'custom', target: fx.rx.url })).body
  const team = { id: TEAM, workspaceId: 'main', defaultLocale: 'en' }
  const long = (i: number, locale: string) => `/${locale}/${'section/'.repeat(60)}page-${i}`
  const locales = Array.from({ length: 64 }, (_, i) => `l${i}`)
  const stored = (eventId: string) => payloadOf(fx.ctx.db, eventId)
  const bytes = async (eventId: string) => Buffer.byteLength(await payloadText(fx.ctx.db, eventId))
  // 250 moved pages in 64 locales: previousUrls alone is about 8 MB.
  const moved = { ...samplePayload(team, 'content.published', 'u-editor'), urls: { en: '/en/new' }, previousUrls: Array.from({ length: 250 * 64 }, (_, i) => long(i, locales[i % 64]!)) }
  await fx.ctx.db.transaction(async (tx) => await enqueueEvent(tx, moved))
  expect(await bytes(moved.eventId)).toBeLessThanOrEqual(MAX_EVENT_BYTES)
  expect(await stored(moved.eventId)).toEqual({ ...moved, previousUrls: [], scope: 'site' })
  // Paths of its own too long as well: urls go too.
  const deep = { ...samplePayload(team, 'content.published', 'u-editor'), urls: Object.fromEntries(locales.map((l) => [l, `/${l}/${'x'.repeat(20_000)}`])), previousUrls: [] as string[] }
  await fx.ctx.db.transaction(async (tx) => await enqueueEvent(tx, deep))
  expect(await stored(deep.eventId)).toEqual({ ...deep, urls: {}, previousUrls: [], scope: 'site' })
  // A usual event is stored as built.
  const usual = samplePayload(team, 'content.published', 'u-editor')
  await fx.ctx.db.transaction(async (tx) => await enqueueEvent(tx, usual))
  expect(await stored(usual.eventId)).toEqual(usual)
  expect((await loggedPayloads(hook.id)).map((p) => p.eventId)).toEqual([usual.eventId, deep.eventId, moved.eventId])
})

test('through a publish: a page moved with 250 live pages below lists them all (scope "document"); with 251, or a stored slug that is no path segment, scope is "site"', async () => {
  const own = await createTestContext()
  try {
    const hook = (await own.call('POST', base, { token: TOKENS.webhooks, body: { label: 'tree', provider: 'custom', target: fx.rx.url } })).body
    const write = (id: string, parent: string, slug: string) =>
      own.call('POST', `/content/${TEAM}`, { body: { id, contentType: 'page', fields: { parent }, locales: { en: { title: slug, slug } } } })
    const publish = async (ids: string[]) => {
      for (let i = 0; i < ids.length; i += 100) {
        const res = await own.call('POST', `/content/publish/${TEAM}`, { body: { ids: ids.slice(i, i + 100) } })
        expect(res.body.every((item: { status: number }) => item.status === 0)).toBe(true)
      }
    }
    const lastEvent = async () => {
      const log = (await own.call('GET', `${base}/${hook.id}/deliveries?limit=1`, { token: TOKENS.webhooks })).body
      return JSON.parse(((await row(own.db, 'SELECT payload FROM outbox_events WHERE event_id = ?', log[0].eventId)) as { payload: string }).payload)
    }
    expect((await write('pages/tree', 'pages/home', 'tree')).status).toBe(200)
    const children = Array.from({ length: 250 }, (_, i) => `pages/tree/c${i}`)
    for (const id of children) expect((await write(id, 'pages/tree', id.split('/').pop()!)).status).toBe(200)
    await publish(['pages/tree', ...children])
    const rename = async (slug: string) => {
      expect((await write('pages/tree/draft', 'pages/home', slug)).status).toBe(200)
      await publish(['pages/tree'])
      return lastEvent()
    }
    const at250 = await rename('tree-2')
    expect({ scope: at250.scope, previous: at250.previousUrls.length }).toEqual({ scope: 'document', previous: 251 })
    expect(at250.previousUrls).toContain('/tree/c249')
    // One more live page below: more than 250, the site is told to refresh everything.
    expect((await write('pages/tree/c250', 'pages/tree', 'c250')).status).toBe(200)
    await publish(['pages/tree/c250'])
    const at251 = await rename('tree-3')
    expect({ scope: at251.scope, documentId: at251.documentId }).toEqual({ scope: 'site', documentId: 'pages/tree' })
    // A slug stored before slugs were checked: its path cannot be given reliably.
    expect((await write('pages/odd', 'pages/home', 'odd')).status).toBe(200)
    await publish(['pages/odd'])
    await editBody(own.db, TEAM, 'pages/odd', (b) => { b.locales.en.slug = 'a/b' })
    expect((await write('pages/odd/draft', 'pages/home', 'odd-2')).status).toBe(200)
    await publish(['pages/odd'])
    expect((await lastEvent()).scope).toBe('site')
  } finally {
    await own.close()
  }
}, 60_000)

test('a label of only spaces or with a line or paragraph separator is refused', async () => {
  for (const label of ['   ', '\u00a0', 'a\u2028b', 'a\u2029b']) {
    const res = await create({ label, provider: 'custom', target: fx.rx.url })
    expect({ label, status: res.status, error: res.body.error }).toEqual({ label, status: 400, error: 'invalid_body' })
  }
})

test('a test send answered after its webhook was deleted still answers the caller (nothing to log it in), not a 500', async () => {
  const slow = startReceiver([{ status: 200, body: 'ok', delayMs: 400 }])
  try {
    const hook = (await create({ label: 'gone', provider: 'custom', target: slow.url })).body
    const sent = fx.ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
    await waitFor(() => slow.requests.length === 1, 5000, 'the test send at the receiver') // on the wire, not yet answered
    expect((await fx.ctx.call('DELETE', `${base}/${hook.id}`, { token: TOKENS.webhooks })).status).toBe(204)
    const res = await sent
    expect({ status: res.status, delivered: res.body.delivered, code: res.body.status }).toEqual({ status: 200, delivered: true, code: 200 })
    expect((await row(fx.ctx.db, 'SELECT COUNT(*) AS n FROM outbox WHERE webhook_id = ?', hook.id))).toEqual({ n: 0 })
  } finally {
    slow.stop()
  }
})

sqliteOnly('reads the bytes of the SQLite file').test('a replaced secret and a dropped provider token are gone from the database file, not only from the row', async () => {
  // Backups copy the file: SQLite leaves a rewritten row's old bytes in the page unless told
  // to zero them (secure_delete).
  const own = await createTestContext()
  try {
    const oldSecret = 'old-secret-to-forget-0123456789-abcdef'
    // A long token: the row then shrinks by more than the bytes up to the secret, which SQLite
    // would leave behind in the page as free space (the new row goes at the old one's end).
    const token = `ghp_token_to_forget_${'t'.repeat(400)}`
    const body = { label: 'gh', provider: 'github', target: 'https://api.github.com/repos/acme/site/dispatches', secret: oldSecret, options: { token } }
    const hook = (await own.call('POST', base, { token: TOKENS.webhooks, body })).body
    const onDisk = () => {
      sqliteOf(own.db).$client.exec('PRAGMA wal_checkpoint(TRUNCATE)') // everything in the file itself, the WAL emptied
      const file = readFileSync(own.path, 'latin1')
      return { secret: file.includes(oldSecret), token: file.includes(token.slice(0, 40)) }
    }
    expect(onDisk()).toEqual({ secret: true, token: true })
    const patch = { provider: 'custom', target: fx.rx.url, secret: 'a-new-secret-of-32-chars-0123456' }
    expect((await own.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body: patch })).status).toBe(200)
    expect(onDisk()).toEqual({ secret: false, token: false })
  } finally {
    await own.close()
  }
})

test('a short secret stored before the length rule is not given away by secretLast4', async () => {
  const hook = (await create({ label: 'Legacy', provider: 'custom', target: fx.rx.url })).body
  await run(fx.ctx.db, 'UPDATE webhooks SET secret = ? WHERE id = ?', 'abc', hook.id)
  const one = await fx.ctx.call('GET', `${base}/${hook.id}`, { token: TOKENS.webhooks })
  expect(one.body.secretLast4).toBe('')
})
