import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createTestContext, holdWriteLock, insertDelivery, TEAM, TOKENS, waitFor, type TestContext } from '../helpers'
import { DELETE_STEP, deleteDeliveriesStep } from '../../core/webhooks/service'
import { enqueueEvent, MAX_EVENT_BYTES } from '../../core/events/record'
import { samplePayload } from '../../core/webhooks/deliveries'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { verifySignature } from '../../receiver'

let ctx: TestContext
let rx: TestReceiver
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())
beforeEach(() => { rx = startReceiver() })
afterEach(() => rx.stop())

const base = `/teams/${TEAM}/webhooks`
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/)
const create = (body: Record<string, unknown>, token = TOKENS.webhooks) => ctx.call('POST', base, { token, body })
/** The payloads of a webhook's delivery log, newest first, as stored for sending. */
async function loggedPayloads(hookId: string): Promise<any[]> {
  const log = (await ctx.call('GET', `${base}/${hookId}/deliveries`, { token: TOKENS.webhooks })).body
  return log.map((d: any) => JSON.parse((ctx.db.$client.query('SELECT payload FROM outbox_events WHERE event_id = ?').get(d.eventId) as { payload: string }).payload))
}

test('create answers 201 with the record and the full generated secret, once', async () => {
  const res = await create({ label: 'Site', provider: 'custom', target: rx.url })
  expect(res.status).toBe(201)
  const secret = res.body.secret as string
  expect(secret.length).toBeGreaterThanOrEqual(43) // 32 bytes base64url
  expect(res.body).toEqual({
    id: expect.any(String), label: 'Site', provider: 'custom', target: rx.url,
    events: ['content.published', 'content.unpublished'], secretLast4: secret.slice(-4), options: {}, signatureScheme: 'service',
    createdAt: ISO, updatedAt: ISO, secret,
  })
  const one = await ctx.call('GET', `${base}/${res.body.id}`, { token: TOKENS.webhooks })
  const { secret: _s, ...record } = res.body
  expect(one).toMatchObject({ status: 200, body: record })
  expect(one.text).not.toContain(secret)
  const list = await ctx.call('GET', base, { token: TOKENS.webhooks })
  expect(list.status).toBe(200)
  expect(list.body).toContainEqual(record)
  expect(list.text).not.toContain(secret)
})

// User-entered secrets are at least 32 characters (contract.md "Webhooks").
const OWN = 'my-own-secret-0123456789-abcdef-1234'
const ROTATED = 'rotated-secret-0123456789-abcdefabcd'

test('a user-entered secret is kept and shown by its last four characters afterwards', async () => {
  const res = await create({ label: 'Own', provider: 'custom', target: rx.url, events: ['site.changed'], secret: OWN })
  expect(res.body).toMatchObject({ secret: OWN, secretLast4: '1234', events: ['site.changed'] })
  const patched = await ctx.call('PATCH', `${base}/${res.body.id}`, { token: TOKENS.webhooks, body: { label: 'Renamed' } })
  expect(patched.status).toBe(200)
  expect(patched.body.secret).toBeUndefined()
  expect(patched.body).toMatchObject({ label: 'Renamed', secretLast4: '1234' })
  const rotated = await ctx.call('PATCH', `${base}/${res.body.id}`, { token: TOKENS.webhooks, body: { secret: ROTATED } })
  expect(rotated.body).toMatchObject({ secret: ROTATED, secretLast4: 'abcd' })
  const again = await ctx.call('GET', `${base}/${res.body.id}`, { token: TOKENS.webhooks })
  expect(again.body.secret).toBeUndefined()
})

test('a short or whitespace secret is refused on create and on update; the stored one stays', async () => {
  for (const secret of ['abc', '   ', 'x'.repeat(31), `${OWN}\n`]) {
    const res = await create({ label: 'Weak', provider: 'custom', target: rx.url, secret })
    expect({ secret, status: res.status, body: res.body }).toEqual({ secret, status: 400, body: { error: 'invalid_secret', message: expect.any(String) } })
  }
  const list = await ctx.call('GET', base, { token: TOKENS.webhooks })
  expect(list.body.map((w: { label: string }) => w.label)).not.toContain('Weak')
  const hook = (await create({ label: 'Kept', provider: 'custom', target: rx.url, secret: OWN })).body
  for (const secret of ['abc', ' '.repeat(40)]) {
    const res = await ctx.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body: { secret, label: 'Changed' } })
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_secret' })
  }
  const row = ctx.db.$client.query('SELECT label, secret FROM webhooks WHERE id = ?').get(hook.id)
  expect(row).toEqual({ label: 'Kept', secret: OWN })
  // Empty still means "generate one" (create) and "keep the old one" (update).
  expect((await create({ label: 'Gen', provider: 'custom', target: rx.url, secret: '' })).body.secret).toHaveLength(43)
  const kept = await ctx.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body: { secret: '' } })
  expect(kept).toMatchObject({ status: 200, body: { secretLast4: '1234' } })
  expect(kept.body.secret).toBeUndefined()
})

test('a label with a lone surrogate is 400 invalid_body on create and update (it would be stored as U+FFFD, not as answered)', async () => {
  const refused = { status: 400, body: { error: 'invalid_body', message: '`label` must be well-formed text (no lone surrogates).' } }
  const res = await create({ label: 'Bad \ud800', provider: 'custom', target: rx.url })
  expect({ status: res.status, body: res.body }).toEqual(refused)
  const hook = (await create({ label: 'Fine ünïcødé 🚀', provider: 'custom', target: rx.url })).body
  const patched = await ctx.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body: { label: '\udfffx' } })
  expect({ status: patched.status, body: patched.body }).toEqual(refused)
  expect((await ctx.call('GET', `${base}/${hook.id}`, { token: TOKENS.webhooks })).body.label).toBe('Fine ünïcødé 🚀')
})

test('secretLast4 is the last four characters, never half an emoji', async () => {
  const secret = `${'Z'.repeat(33)}\u{1F680}abc`
  const hook = await create({ label: 'Emoji', provider: 'custom', target: rx.url, secret })
  expect({ status: hook.status, secretLast4: hook.body.secretLast4 }).toEqual({ status: 201, secretLast4: '\u{1F680}abc' })
  expect((await ctx.call('GET', `${base}/${hook.body.id}`, { token: TOKENS.webhooks })).body.secretLast4).toBe('\u{1F680}abc')
})

test('a secret over 500 characters is invalid_secret like a short one, not a schema error', async () => {
  const res = await create({ label: 'Long', provider: 'custom', target: rx.url, secret: 'a'.repeat(501) })
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_secret' })
  expect((await create({ label: 'Typed', provider: 'custom', target: rx.url, secret: 42 })).body.error).toBe('invalid_body')
})

test('a secret with a lone surrogate or a control character is invalid_secret (it would be stored as another key)', async () => {
  for (const secret of ['\ud800'.repeat(32), '\u0000'.repeat(32), `${OWN}\u0007`]) {
    const res = await create({ label: 'Odd', provider: 'custom', target: rx.url, secret })
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_secret' })
  }
  expect(ctx.db.$client.query("SELECT COUNT(*) AS n FROM webhooks WHERE label = 'Odd'").get()).toEqual({ n: 0 })
})

test('a target with spaces or control characters, a label with control characters and a github target with dot segments, a query or a fragment are refused', async () => {
  for (const target of [`${rx.url}\u0000`, `${rx.url}/a\tb`, ` ${rx.url}`, `${rx.url}/\ud800`, `${rx.url}/p/\u00a0`, `${rx.url}/a\u2028b`, `${rx.url}/\ufeff`]) {
    const res = await create({ label: 'x', provider: 'custom', target })
    expect({ target, status: res.status, error: res.body.error }).toEqual({ target, status: 400, error: 'invalid_target' })
  }
  for (const label of ['a\u0000b', 'line\nbreak']) {
    const res = await create({ label, provider: 'custom', target: rx.url })
    expect({ label, status: res.status, error: res.body.error }).toEqual({ label, status: 400, error: 'invalid_body' })
  }
  // Dot segments, and a query or fragment inside the repository path: each would send the token to another endpoint than /dispatches.
  for (const target of ['https://api.github.com/repos/../../dispatches', 'https://api.github.com/repos/o/r#/dispatches', 'https://api.github.com/repos/o/r?x=/dispatches', 'https://api.github.com/repos/o?/r/dispatches']) {
    const res = await create({ label: 'gh', provider: 'github', target, options: { token: 'ghp_secret_token_9876' } })
    expect({ target, status: res.status, error: res.body.error }).toEqual({ target, status: 400, error: 'invalid_target' })
  }
})

test('a provider token is kept only for github: refused on another provider, dropped when a github webhook changes provider', async () => {
  const custom = await create({ label: 'c', provider: 'custom', target: rx.url, options: { token: 'ghp_secret_token_9876' } })
  expect({ status: custom.status, body: custom.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: '`options.token` is only for github webhooks; this provider sends none.' } })
  const gh = (await create({ label: 'gh', provider: 'github', target: 'https://api.github.com/repos/acme/site/dispatches', options: { token: 'ghp_secret_token_9876' } })).body
  const moved = await ctx.call('PATCH', `${base}/${gh.id}`, { token: TOKENS.webhooks, body: { provider: 'custom', target: rx.url } })
  expect({ status: moved.status, options: moved.body.options }).toEqual({ status: 200, options: {} })
  const stored = ctx.db.$client.query('SELECT options FROM webhooks WHERE id = ?').get(gh.id) as { options: string }
  expect(stored.options).not.toContain('ghp_secret_token')
  const again = await ctx.call('PATCH', `${base}/${gh.id}`, { token: TOKENS.webhooks, body: { options: { token: 'ghp_secret_token_9876' } } })
  expect({ status: again.status, error: again.body.error }).toEqual({ status: 400, error: 'invalid_body' })
})

test('github options: a token that cannot be an Authorization header is refused at save time; eventType is github\'s alone and `null` removes it', async () => {
  const target = 'https://api.github.com/repos/acme/site/dispatches'
  // Bun's fetch refuses such a header before sending: every event would fail as a "network error" after 3 attempts.
  for (const token of ['ghp_abc\r\nX-Evil: 1', 'ghp token', '   ', 'ghp_\u00e9t\u00e9', 'ghp_\u{1F600}']) {
    const res = await create({ label: 'gh', provider: 'github', target, options: { token } })
    expect({ token, status: res.status, error: res.body.error }).toEqual({ token, status: 400, error: 'invalid_body' })
  }
  const notGithub = await create({ label: 'n', provider: 'netlify', target: 'https://api.netlify.com/build_hooks/abc', options: { eventType: 'deploy' } })
  expect({ status: notGithub.status, body: notGithub.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: '`options.eventType` is only for github webhooks; this provider sends none.' } })
  const gh = (await create({ label: 'gh', provider: 'github', target, options: { token: 'ghp_secret_token_9876', eventType: 'site-refresh' } })).body
  expect(gh.options).toEqual({ eventType: 'site-refresh', tokenLast4: '9876' })
  const patch = (body: Record<string, unknown>) => ctx.call('PATCH', `${base}/${gh.id}`, { token: TOKENS.webhooks, body })
  // `null` takes the event type back to the default (the event's own type); the token stays.
  const cleared = await patch({ options: { eventType: null } })
  expect({ status: cleared.status, options: cleared.body.options }).toEqual({ status: 200, options: { tokenLast4: '9876' } })
  expect(JSON.parse((ctx.db.$client.query('SELECT options FROM webhooks WHERE id = ?').get(gh.id) as { options: string }).options)).toEqual({ token: 'ghp_secret_token_9876' })
  expect((await patch({ options: { token: null } })).status).toBe(400) // a token is replaced, never removed (the schema takes no null)
  expect((await patch({ options: { eventType: 'again' } })).body.options).toEqual({ eventType: 'again', tokenLast4: '9876' })
  // Switched to another provider, it keeps no github option at all.
  const moved = await patch({ provider: 'vercel', target: 'https://api.vercel.com/v1/integrations/deploy/x' })
  expect({ status: moved.status, options: moved.body.options }).toEqual({ status: 200, options: {} })
  expect((ctx.db.$client.query('SELECT options FROM webhooks WHERE id = ?').get(gh.id) as { options: string }).options).toBe('{}')
})

test('a target is written the one way every URL parser reads alike: no backslash, `https://` then a host, no empty user part, no port 0', async () => {
  for (const target of ['https://vm\\@example.com/', 'https://example.com\\hook', 'https:example.com/x', 'https:/example.com/x', 'https://@example.com/x', 'https://example.com:0/x', `http://127.0.0.1:${rx.port}\\x`]) {
    const res = await create({ label: 'x', provider: 'custom', target })
    expect({ target, status: res.status, error: res.body.error }).toEqual({ target, status: 400, error: 'invalid_target' })
  }
  // A host the URL parser reads as another: shown as written, it would be sent to example.com (or localhost).
  const spellings = ['https://exa\u200bmple.com/', 'https://exa\u00admple.com/', 'https://ex\u034fample.com/', 'https://EXAMPLE.\u2102OM/',
    'https://\ufb00.example.com/', 'https://example.com\u3002/', 'https://ex%61mple.com/', 'https://b\u00fc\u200bcher.example/', `http://local\u200bhost:${rx.port}/x`, `http://127.1:${rx.port}/x`, 'https://\u212Aexample.com/', 'https://\u0130nfo.example/']
  for (const target of spellings) {
    const res = await create({ label: 'x', provider: 'custom', target })
    expect({ target, status: res.status, error: res.body.error }).toEqual({ target, status: 400, error: 'invalid_target' })
  }
  expect((await create({ label: 'x', provider: 'custom', target: 'https://ex%61mple.com/' })).body.message).toContain('(example.com)')
  for (const target of ['HTTPS://EXAMPLE.COM/', 'https://example.com', 'https://example.com?x=1', 'https://example.com#f', 'https://[2001:db8::1]:8443/x', 'https://b\u00fccher.example/hook', 'https://B\u00dcCHER.example/', 'https://xn--bcher-kva.example/', 'https://example.com./']) {
    const res = await create({ label: 'x', provider: 'custom', target })
    expect({ target, status: res.status, stored: res.body.target }).toEqual({ target, status: 201, stored: target })
  }
  // A target stored before the rule keeps working: its webhook can be edited and is still sent to.
  const legacy = (await create({ label: 'legacy', provider: 'custom', target: rx.url })).body
  ctx.db.$client.query('UPDATE webhooks SET target = ? WHERE id = ?').run(`${rx.url}?q=a\\b`, legacy.id)
  const renamed = await ctx.call('PATCH', `${base}/${legacy.id}`, { token: TOKENS.webhooks, body: { label: 'legacy, renamed' } })
  expect({ status: renamed.status, target: renamed.body.target }).toEqual({ status: 200, target: `${rx.url}?q=a\\b` })
  const sent = await ctx.call('POST', `${base}/${legacy.id}/test`, { token: TOKENS.webhooks })
  expect({ status: sent.status, delivered: sent.body.delivered }).toEqual({ status: 200, delivered: true })
  // Changing it to another target not written plainly is refused like a new one.
  const changed = await ctx.call('PATCH', `${base}/${legacy.id}`, { token: TOKENS.webhooks, body: { target: `${rx.url}?q=c\\d` } })
  expect({ status: changed.status, error: changed.body.error }).toEqual({ status: 400, error: 'invalid_target' })
})

test('an update that changes nothing (`{}`, the record sent back, the same secret) keeps updatedAt; a change moves it', async () => {
  const secret = 'a-secret-of-at-least-thirty-two-characters'
  const hook = (await create({ label: 'Same', provider: 'custom', target: rx.url, secret })).body
  await Bun.sleep(5)
  const patch = (body: Record<string, unknown>) => ctx.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body })
  for (const body of [{}, { label: 'Same', target: rx.url, events: hook.events }, { secret }]) {
    const res = await patch(body)
    expect({ status: res.status, updatedAt: res.body.updatedAt }).toEqual({ status: 200, updatedAt: hook.updatedAt })
  }
  expect((await ctx.call('GET', `${base}/${hook.id}`, { token: TOKENS.webhooks })).body.updatedAt).toBe(hook.updatedAt)
  const renamed = await patch({ label: 'Renamed' })
  expect(renamed.body.updatedAt > hook.updatedAt).toBe(true)
})

test('an event whose paths would pass 1 MiB is stored without them, scope "site" (a receiver would refuse it: a final 413)', async () => {
  const hook = (await create({ label: 'big', provider: 'custom', target: rx.url })).body
  const team = { id: TEAM, workspaceId: 'main', defaultLocale: 'en' }
  const long = (i: number, locale: string) => `/${locale}/${'section/'.repeat(60)}page-${i}`
  const locales = Array.from({ length: 64 }, (_, i) => `l${i}`)
  const stored = (eventId: string) => JSON.parse((ctx.db.$client.query('SELECT payload FROM outbox_events WHERE event_id = ?').get(eventId) as { payload: string }).payload)
  const bytes = (eventId: string) => Buffer.byteLength((ctx.db.$client.query('SELECT payload FROM outbox_events WHERE event_id = ?').get(eventId) as { payload: string }).payload)
  // 250 moved pages in 64 locales: previousUrls alone is about 8 MB.
  const moved = { ...samplePayload(team, 'content.published', 'u-editor'), urls: { en: '/en/new' }, previousUrls: Array.from({ length: 250 * 64 }, (_, i) => long(i, locales[i % 64]!)) }
  ctx.db.transaction((tx) => enqueueEvent(tx, moved))
  expect(bytes(moved.eventId)).toBeLessThanOrEqual(MAX_EVENT_BYTES)
  expect(stored(moved.eventId)).toEqual({ ...moved, previousUrls: [], scope: 'site' })
  // Paths of its own too long as well: urls go too.
  const deep = { ...samplePayload(team, 'content.published', 'u-editor'), urls: Object.fromEntries(locales.map((l) => [l, `/${l}/${'x'.repeat(20_000)}`])), previousUrls: [] as string[] }
  ctx.db.transaction((tx) => enqueueEvent(tx, deep))
  expect(stored(deep.eventId)).toEqual({ ...deep, urls: {}, previousUrls: [], scope: 'site' })
  // A usual event is stored as built.
  const usual = samplePayload(team, 'content.published', 'u-editor')
  ctx.db.transaction((tx) => enqueueEvent(tx, usual))
  expect(stored(usual.eventId)).toEqual(usual)
  expect((await loggedPayloads(hook.id)).map((p) => p.eventId)).toEqual([usual.eventId, deep.eventId, moved.eventId])
})

test('through a publish: a page moved with 250 live pages below lists them all (scope "document"); with 251, or a stored slug that is no path segment, scope is "site"', async () => {
  const own = await createTestContext()
  try {
    const hook = (await own.call('POST', base, { token: TOKENS.webhooks, body: { label: 'tree', provider: 'custom', target: rx.url } })).body
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
      return JSON.parse((own.db.$client.query('SELECT payload FROM outbox_events WHERE event_id = ?').get(log[0].eventId) as { payload: string }).payload)
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
    own.db.$client.query("UPDATE documents SET body = json_set(body, '$.locales.en.slug', 'a/b') WHERE team_id = ? AND id = 'pages/odd'").run(TEAM)
    expect((await write('pages/odd/draft', 'pages/home', 'odd-2')).status).toBe(200)
    await publish(['pages/odd'])
    expect((await lastEvent()).scope).toBe('site')
  } finally {
    own.close()
  }
}, 60_000)

test('a label of only spaces or with a line or paragraph separator is refused', async () => {
  for (const label of ['   ', '\u00a0', 'a\u2028b', 'a\u2029b']) {
    const res = await create({ label, provider: 'custom', target: rx.url })
    expect({ label, status: res.status, error: res.body.error }).toEqual({ label, status: 400, error: 'invalid_body' })
  }
})

test('a test send answered after its webhook was deleted still answers the caller (nothing to log it in), not a 500', async () => {
  const slow = startReceiver([{ status: 200, body: 'ok', delayMs: 400 }])
  try {
    const hook = (await create({ label: 'gone', provider: 'custom', target: slow.url })).body
    const sent = ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
    await waitFor(() => slow.requests.length === 1, 5000, 'the test send at the receiver') // on the wire, not yet answered
    expect((await ctx.call('DELETE', `${base}/${hook.id}`, { token: TOKENS.webhooks })).status).toBe(204)
    const res = await sent
    expect({ status: res.status, delivered: res.body.delivered, code: res.body.status }).toEqual({ status: 200, delivered: true, code: 200 })
    expect(ctx.db.$client.query('SELECT COUNT(*) AS n FROM outbox WHERE webhook_id = ?').get(hook.id)).toEqual({ n: 0 })
  } finally {
    slow.stop()
  }
})

test('a replaced secret and a dropped provider token are gone from the database file, not only from the row', async () => {
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
      own.db.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)') // everything in the file itself, the WAL emptied
      const file = readFileSync(own.path, 'latin1')
      return { secret: file.includes(oldSecret), token: file.includes(token.slice(0, 40)) }
    }
    expect(onDisk()).toEqual({ secret: true, token: true })
    const patch = { provider: 'custom', target: rx.url, secret: 'a-new-secret-of-32-chars-0123456' }
    expect((await own.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body: patch })).status).toBe(200)
    expect(onDisk()).toEqual({ secret: false, token: false })
  } finally {
    own.close()
  }
})

test('a short secret stored before the length rule is not given away by secretLast4', async () => {
  const hook = (await create({ label: 'Legacy', provider: 'custom', target: rx.url })).body
  ctx.db.$client.query('UPDATE webhooks SET secret = ? WHERE id = ?').run('abc', hook.id)
  const one = await ctx.call('GET', `${base}/${hook.id}`, { token: TOKENS.webhooks })
  expect(one.body.secretLast4).toBe('')
})

test('validation: provider, events, target scheme and private targets', async () => {
  const bad = async (body: Record<string, unknown>) => (await create(body)).body.error
  expect(await bad({ label: 'x', provider: 'ftp', target: rx.url })).toBe('invalid_body')
  expect(await bad({ label: 'x', provider: 'custom', target: rx.url, events: ['content.moved'] })).toBe('invalid_body')
  expect(await bad({ label: 'x', provider: 'custom', target: 'not a url' })).toBe('invalid_target')
  expect(await bad({ label: 'x', provider: 'custom', target: 'ftp://example.com/x' })).toBe('invalid_target')
  expect(await bad({ label: 'x', provider: 'github', target: 'https://example.com/x', options: { token: 't' } })).toBe('invalid_target')
  expect(await bad({ label: 'x', provider: 'github', target: 'https://api.github.com/repos/o/r/dispatches' })).toBe('invalid_body')
  const strict = await createTestContext({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } })
  try {
    for (const target of [rx.url, 'https://127.0.0.1/x', 'https://localhost/x', 'https://LOCALHOST./', 'https://169.254.169.254/x', 'https://[::ffff:10.0.0.1]/x']) {
      const res = await strict.call('POST', base, { token: TOKENS.webhooks, body: { label: 'x', provider: 'custom', target } })
      expect({ target, status: res.status, error: res.body.error }).toEqual({ target, status: 400, error: 'invalid_target' })
      // A loopback or private target says what would allow it (a receiver on the operator's own network).
      expect({ target, names: res.body.message.includes('WEBHOOK_ALLOW_PRIVATE_TARGETS=true') }).toEqual({ target, names: true })
    }
    const http = await strict.call('POST', base, { token: TOKENS.webhooks, body: { label: 'x', provider: 'custom', target: 'http://hooks.example.com/x' } })
    expect(http.body).toEqual({ error: 'invalid_target', message: 'The target must be an https:// URL (plain http:// only when the service runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true, for receivers on a private network).' })
    const ok = await strict.call('POST', base, { token: TOKENS.webhooks, body: { label: 'x', provider: 'custom', target: 'https://hooks.example.com/x' } })
    expect(ok.status).toBe(201)
  } finally {
    strict.close()
  }
})

test('github keeps its token out of every answer', async () => {
  const res = await create({ label: 'gh', provider: 'github', target: 'https://api.github.com/repos/acme/site/dispatches', options: { token: 'ghp_secret_token_9876', eventType: 'cms' } })
  expect(res.status).toBe(201)
  expect(res.body.options).toEqual({ eventType: 'cms', tokenLast4: '9876' })
  expect(res.text).not.toContain('ghp_secret_token')
  // A short token would be shown whole by its last four: it shows nothing.
  const short = await ctx.call('PATCH', `${base}/${res.body.id}`, { token: TOKENS.webhooks, body: { options: { token: 'abc' } } })
  expect({ status: short.status, options: short.body.options }).toEqual({ status: 200, options: { eventType: 'cms', tokenLast4: '' } })
})

test('401 without a token, 403 without ManageWebhooks or for another team, 404 for an unknown id', async () => {
  const body = { label: 'x', provider: 'custom', target: rx.url }
  expect((await ctx.call('POST', base, { token: null, body })).status).toBe(401)
  expect((await ctx.call('POST', base, { token: TOKENS.translator, body })).body).toEqual({ error: 'forbidden', message: expect.any(String) })
  expect((await ctx.call('GET', base, { token: TOKENS.outsider })).status).toBe(403)
  expect((await ctx.call('GET', `${base}/nope`, { token: TOKENS.webhooks })).body).toEqual({ error: 'not_found', message: 'Webhook not found.' })
  const created = await create(body)
  expect((await ctx.call('GET', `/teams/other/webhooks/${created.body.id}`, { token: TOKENS.outsider })).status).toBe(404)
})

test('delete removes the webhook', async () => {
  const { body } = await create({ label: 'gone', provider: 'custom', target: rx.url })
  expect((await ctx.call('DELETE', `${base}/${body.id}`, { token: TOKENS.webhooks })).status).toBe(204)
  expect((await ctx.call('GET', `${base}/${body.id}`, { token: TOKENS.webhooks })).status).toBe(404)
  expect((await ctx.call('DELETE', `${base}/${body.id}`, { token: TOKENS.webhooks })).status).toBe(404)
})

test('delete takes the stored bytes of events only it was sent (a test send, its own publishes) and keeps those another webhook still needs', async () => {
  const own = await createTestContext()
  try {
    const hook = (events: string[]) => own.call('POST', base, { token: TOKENS.webhooks, body: { label: 'h', provider: 'custom', target: rx.url, events } }).then((r) => r.body.id as string)
    const both = await hook(['content.published'])
    const onlyUnpublished = await hook(['content.unpublished'])
    const alone = await hook(['content.published', 'content.unpublished'])
    await own.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/home'] } }) // for `both` and `alone`
    await own.call('POST', `/content/archive/${TEAM}`, { body: { ids: ['pages/home'] } }) // for `onlyUnpublished` and `alone`
    expect((await own.call('POST', `${base}/${alone}/test`, { token: TOKENS.webhooks })).status).toBe(200) // for `alone` only
    const payloads = () => own.db.$client.query('SELECT json_extract(payload, \'$.eventType\') AS type, json_extract(payload, \'$.documentId\') AS doc FROM outbox_events ORDER BY type, doc').all()
    expect(payloads()).toEqual([
      { type: 'content.published', doc: 'pages/home' }, { type: 'content.published', doc: 'webhook-test' }, { type: 'content.unpublished', doc: 'pages/home' },
    ])
    expect((await own.call('DELETE', `${base}/${alone}`, { token: TOKENS.webhooks })).status).toBe(204)
    expect(payloads()).toEqual([{ type: 'content.published', doc: 'pages/home' }, { type: 'content.unpublished', doc: 'pages/home' }])
    await own.call('DELETE', `${base}/${both}`, { token: TOKENS.webhooks })
    await own.call('DELETE', `${base}/${onlyUnpublished}`, { token: TOKENS.webhooks })
    expect({ payloads: payloads(), outbox: own.db.$client.query('SELECT COUNT(*) AS n FROM outbox').get() }).toEqual({ payloads: [], outbox: { n: 0 } })
  } finally {
    own.close()
  }
})

test('a long delivery log is deleted in short steps; pending rows (in flight, due, written meanwhile) go only with the webhook', async () => {
  const own = await createTestContext()
  try {
    const hook = (label: string) => own.call('POST', base, { token: TOKENS.webhooks, body: { label, provider: 'custom', target: rx.url } }).then((r) => r.body.id as string)
    const gone = await hook('gone')
    const kept = await hook('kept')
    const c = own.db.$client
    const attempt = c.query(`INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body)
      VALUES (?, ?, ?, 1, 'scheduled', 0, 200, NULL, 3, 'ok')`)
    const add = (eventId: string, webhookId: string, status: 'pending' | 'delivered' = 'delivered', lease?: [string, number]) =>
      attempt.run(insertDelivery(c, { eventId, webhookId, status, lease }), webhookId, eventId)
    c.transaction(() => {
      add('ev-in-flight', gone, 'pending', ['lease-1', Date.now() + 60_000]) // a dispatcher is sending it
      add('ev-due', gone, 'pending') // not sent yet: a deletion cut short must not drop it
      for (let i = 0; i < 1234; i++) {
        add(`ev-${i}`, gone)
        if (i % 100 === 0) add(`ev-${i}`, kept) // an event both webhooks were sent
      }
    })()
    const count = (sql: string) => (c.query(sql).get() as { n: number }).n
    const consistent = () => {
      expect(count('SELECT COUNT(*) AS n FROM delivery_attempts a WHERE NOT EXISTS (SELECT 1 FROM outbox o WHERE o.seq = a.outbox_seq)')).toBe(0)
      expect(count('SELECT COUNT(*) AS n FROM outbox_events e WHERE NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = e.event_id)')).toBe(0)
    }
    const ofGone = () => count(`SELECT COUNT(*) AS n FROM outbox WHERE webhook_id = '${gone}'`)
    expect(ofGone()).toBe(1236)
    // One step takes at most DELETE_STEP finished deliveries, never a pending one, and leaves nothing dangling.
    expect(deleteDeliveriesStep(own.db, gone, DELETE_STEP)).toBe(DELETE_STEP)
    expect(ofGone()).toBe(1236 - DELETE_STEP)
    consistent()
    expect(deleteDeliveriesStep(own.db, gone, DELETE_STEP)).toBe(DELETE_STEP)
    expect(deleteDeliveriesStep(own.db, gone, DELETE_STEP)).toBe(1234 - 2 * DELETE_STEP)
    expect(deleteDeliveriesStep(own.db, gone, DELETE_STEP)).toBe(0)
    // Steps cut short here (a crash, a 503) leave the webhook with every pending delivery and its bytes.
    expect(c.query(`SELECT event_id FROM outbox WHERE webhook_id = '${gone}' ORDER BY seq`).all()).toEqual([{ event_id: 'ev-in-flight' }, { event_id: 'ev-due' }])
    expect(count(`SELECT COUNT(*) AS n FROM outbox_events WHERE event_id IN ('ev-in-flight', 'ev-due')`)).toBe(2)
    consistent()
    add('ev-0', gone) // written meanwhile (a redelivery of an event the kept webhook still holds)
    expect((await own.call('DELETE', `${base}/${gone}`, { token: TOKENS.webhooks })).status).toBe(204)
    expect(ofGone()).toBe(0)
    consistent()
    // The kept webhook's deliveries, their attempts and their events' bytes are all there.
    expect(count(`SELECT COUNT(*) AS n FROM outbox WHERE webhook_id = '${kept}'`)).toBe(13)
    expect(count(`SELECT COUNT(*) AS n FROM delivery_attempts WHERE webhook_id = '${kept}'`)).toBe(13)
    expect(count('SELECT COUNT(*) AS n FROM outbox_events')).toBe(13)
    expect((await own.call('GET', `${base}/${kept}/deliveries`, { token: TOKENS.webhooks })).body).toHaveLength(13)
  } finally {
    own.close()
  }
})

test('deleting a webhook with a long log waits for a free write lock between its steps, on timers', async () => {
  const own = await createTestContext()
  try {
    const id = (await own.call('POST', base, { token: TOKENS.webhooks, body: { label: 'h', provider: 'custom', target: rx.url } })).body.id as string
    const c = own.db.$client
    c.transaction(() => {
      for (let i = 0; i < 3 * DELETE_STEP; i++) insertDelivery(c, { eventId: `ev-${i}`, webhookId: id })
    })()
    // Another process takes the write lock as soon as the first step has given it back.
    const outbox = () => (c.query(`SELECT COUNT(*) AS n FROM outbox WHERE webhook_id = '${id}'`).get() as { n: number }).n
    const deleting = own.call('DELETE', `${base}/${id}`, { token: TOKENS.webhooks })
    while (outbox() === 3 * DELETE_STEP) await Bun.sleep(0) // a look between every two of its turns
    const other = holdWriteLock(own.path)
    const steps = outbox()
    // Stopped part way: the log goes in steps, not in one transaction.
    expect(steps).toBeGreaterThan(0)
    expect(steps).toBeLessThan(3 * DELETE_STEP)
    const ticks = { n: 0 }
    const ticker = setInterval(() => ticks.n++, 5)
    await Bun.sleep(150)
    // Held by the other process: the deletion waits (on timers: this process keeps running) and takes nothing.
    expect(outbox()).toBe(steps)
    expect(ticks.n).toBeGreaterThan(10)
    other.release('COMMIT')
    clearInterval(ticker)
    expect((await deleting).status).toBe(204)
    expect(outbox()).toBe(0)
  } finally {
    own.close()
  }
})

test('a response body cut at 4 KiB never ends in half a character', async () => {
  rx.answers = [{ status: 200, body: 'x'.repeat(4095) + 'é'.repeat(100) }]
  const { body: hook } = await create({ label: 'cut', provider: 'custom', target: rx.url })
  const res = await ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
  expect(res.body.responseBody).toBe('x'.repeat(4095))
  expect(Buffer.byteLength(res.body.responseBody)).toBeLessThanOrEqual(4096)
})

test('test endpoint sends a signed sample synchronously and logs it as a test delivery', async () => {
  rx.answers = [{ status: 200, body: 'x'.repeat(5000) }]
  const { body: hook } = await create({ label: 't', provider: 'custom', target: rx.url, events: ['content.unpublished', 'site.changed'] })
  const res = await ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
  expect(res.status).toBe(200)
  expect(res.body).toEqual({ delivered: true, status: 200, durationMs: expect.any(Number), responseBody: 'x'.repeat(4096) })
  expect(rx.requests).toHaveLength(1)
  const sent = rx.requests[0]!
  const payload = JSON.parse(sent.body)
  expect(payload).toMatchObject({ v: 2, eventType: 'content.unpublished', documentId: 'webhook-test', teamId: TEAM, userId: 'u-webhooks' })
  expect(sent.headers['x-service-delivery']).toBe(payload.eventId)
  expect(verifySignature(sent.body, sent.headers['x-service-signature'], hook.secret)).toBe(true)

  const site = await ctx.call('POST', `${base}/${hook.id}/test?eventType=site.changed`, { token: TOKENS.webhooks })
  expect(site.body.delivered).toBe(true)
  expect(JSON.parse(rx.requests[1]!.body)).toMatchObject({ eventType: 'site.changed', scope: 'site', urls: {} })
  expect((await ctx.call('POST', `${base}/${hook.id}/test?eventType=nope`, { token: TOKENS.webhooks })).body.error).toBe('invalid_event_type')
  // An empty one is left out: the first subscribed event.
  const blank = await ctx.call('POST', `${base}/${hook.id}/test?eventType=`, { token: TOKENS.webhooks })
  expect(blank.body.delivered).toBe(true)
  expect(JSON.parse(rx.requests[2]!.body).eventType).toBe('content.unpublished')

  rx.answers = [{ status: 503, body: 'down' }]
  const failed = await ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })
  expect(failed.body).toEqual({ delivered: false, status: 503, durationMs: expect.any(Number), responseBody: 'down' })

  const log = await ctx.call('GET', `${base}/${hook.id}/deliveries`, { token: TOKENS.webhooks })
  expect(log.status).toBe(200)
  expect(log.body.map((d: any) => [d.eventType, d.status, d.attempts.map((a: any) => [a.attempt, a.trigger, a.statusCode])])).toEqual([
    ['content.unpublished', 'failed', [[1, 'test', 503]]],
    ['content.unpublished', 'delivered', [[1, 'test', 200]]],
    ['site.changed', 'delivered', [[1, 'test', 200]]],
    ['content.unpublished', 'delivered', [[1, 'test', 200]]],
  ])
  expect(log.body[0]).toEqual({
    eventId: expect.any(String), eventType: 'content.unpublished', status: 'failed', createdAt: ISO,
    attempts: [{ attempt: 1, trigger: 'test', at: ISO, statusCode: 503, error: null, durationMs: expect.any(Number), nextAttemptAt: null, responseBody: 'down' }],
  })
})

test('a batch publishes a parent before its child, whatever the order asked: the child event names its path', async () => {
  const { body: hook } = await create({ label: 'order', provider: 'custom', target: rx.url })
  const put = (id: string, parent: string, slug: string) =>
    ctx.call('POST', `/content/${TEAM}`, { body: { id, contentType: 'page', fields: { parent }, locales: { en: { title: slug, slug } } } })
  expect((await put('pages/shop', 'pages/home', 'shop')).status).toBe(200)
  expect((await put('pages/shop-item', 'pages/shop', 'item')).status).toBe(200)
  const res = await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/shop-item', 'pages/shop'] } })
  // Answers in the order asked.
  expect(res.body.map((i: any) => [i.id, i.status])).toEqual([['pages/shop-item', 0], ['pages/shop', 0]])
  const log = (await ctx.call('GET', `${base}/${hook.id}/deliveries`, { token: TOKENS.webhooks })).body
  const payloads = log.map((d: any) => JSON.parse((ctx.db.$client.query('SELECT payload FROM outbox_events WHERE event_id = ?').get(d.eventId) as { payload: string }).payload))
  expect(payloads.map((p: any) => [p.documentId, p.urls]).reverse()).toEqual([
    ['pages/shop', { en: '/shop' }],
    ['pages/shop-item', { en: '/shop/item' }],
  ])
})

test('a publish writes an outbox row; redeliver puts the same event back to pending as manual', async () => {
  const { body: hook } = await create({ label: 'r', provider: 'custom', target: rx.url })
  const doc = { id: 'pages/about', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'About', slug: 'about' } } }
  expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
  expect((await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/about'] } })).body[0].status).toBe(0)
  const log = await ctx.call('GET', `${base}/${hook.id}/deliveries`, { token: TOKENS.webhooks })
  expect(log.body).toEqual([{ eventId: expect.any(String), eventType: 'content.published', status: 'pending', createdAt: ISO, attempts: [] }])
  const eventId = log.body[0].eventId
  const row = ctx.db.$client.query('SELECT payload FROM outbox_events WHERE event_id = ?').get(eventId) as { payload: string }
  expect(JSON.parse(row.payload)).toEqual({
    v: 2, eventType: 'content.published', eventId, occurredAt: ISO, teamId: TEAM, workspaceId: 'main', userId: 'u-editor',
    documentId: 'pages/about', collection: 'pages', locales: ['en'], status: 'published', url: '/about', urls: { en: '/about' },
    previousUrls: [], scope: 'document',
  })
  ctx.db.$client.query("UPDATE outbox SET status = 'failed', attempts = 3 WHERE event_id = ? AND webhook_id = ?").run(eventId, hook.id)
  const again = await ctx.call('POST', `${base}/${hook.id}/deliveries/${eventId}/redeliver`, { token: TOKENS.webhooks })
  expect(again).toMatchObject({ status: 202, body: { eventId, eventType: 'content.published', status: 'pending' } })
  expect(ctx.db.$client.query(
    'SELECT status, attempts, trigger, payload FROM outbox JOIN outbox_events USING (event_id) WHERE event_id = ? AND webhook_id = ?',
  ).get(eventId, hook.id)).toEqual({
    status: 'pending', attempts: 0, trigger: 'manual', payload: row.payload,
  })
  expect((await ctx.call('POST', `${base}/${hook.id}/deliveries/nope/redeliver`, { token: TOKENS.webhooks })).status).toBe(404)
})

test('publish and its outbox rows are one transaction: one row per subscribed webhook, or, when the outbox write fails, no publish either', async () => {
  const own = await createTestContext()
  try {
    const hook = async (label: string, events?: string[]) =>
      (await own.call('POST', base, { token: TOKENS.webhooks, body: { label, provider: 'custom', target: rx.url, ...(events ? { events } : {}) } })).body.id as string
    const [a, b] = [await hook('a'), await hook('b', ['content.published'])]
    await hook('site only', ['site.changed']) // not subscribed to content.published: no row
    const doc = (id: string, slug: string) => ({ id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: slug, slug } } })
    const c = own.db.$client
    const rows = (id: string) => c.query(`SELECT webhook_id AS hook FROM outbox JOIN outbox_events USING (event_id)
      WHERE json_extract(payload, '$.documentId') = ? ORDER BY webhook_id`).all(id).map((r) => (r as { hook: string }).hook)
    expect((await own.call('POST', `/content/${TEAM}`, { body: doc('pages/tx-ok', 'tx-ok') })).status).toBe(200)
    expect((await own.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/tx-ok'] } })).body[0].status).toBe(0)
    expect(rows('pages/tx-ok')).toEqual([a, b].sort())
    // The outbox write fails inside the publish (a trigger stands in for a full disk or a constraint).
    expect((await own.call('POST', `/content/${TEAM}`, { body: doc('pages/tx-fail', 'tx-fail') })).status).toBe(200)
    c.exec(`CREATE TRIGGER outbox_fails BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'outbox write failed'); END`)
    const failed = await own.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/tx-fail'] } })
    c.exec('DROP TRIGGER outbox_fails')
    expect({ status: failed.status, error: failed.body.error }).toEqual({ status: 500, error: 'internal' })
    expect(rows('pages/tx-fail')).toEqual([])
    expect(c.query('SELECT COUNT(*) AS n FROM outbox_events WHERE json_extract(payload, \'$.documentId\') = ?').get('pages/tx-fail')).toEqual({ n: 0 })
    // Nothing of the publish stayed: not live, unstamped, no Published Version.
    const stayed = (await own.call('GET', `/content/${TEAM}?id=pages/tx-fail`)).body
    expect({ published: stayed['@metadata'].published, stamp: stayed.__publishedAt ?? null }).toEqual({ published: false, stamp: null })
    expect((await own.call('GET', `/content/versions/${TEAM}?id=pages/tx-fail`)).body.rows).toEqual([])
  } finally {
    own.close()
  }
})

test('delivery metrics are on /metrics', async () => {
  const res = await ctx.call('GET', '/metrics', { token: TOKENS.translator })
  expect(res.text).toContain('service_webhook_outbox{status="pending"}')
  expect(res.text).toContain('service_webhook_delivery_attempts{result="2xx"}')
})

test('URLs come from the type before and after: a page that becomes a type without URLs lists its old paths; a draft-only parent gives no URL, not site scope', async () => {
  const { body: hook } = await create({ label: 'types', provider: 'custom', target: rx.url })
  const payloads = () => loggedPayloads(hook.id)
  const write = (body: Record<string, unknown>) => ctx.call('POST', `/content/${TEAM}`, { body })
  const page = (id: string, parent: string, slug: string) => ({ id, contentType: 'page', fields: { parent }, locales: { en: { title: slug, slug } } })
  const publish = (ids: string[]) => ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids } })
  expect((await write(page('pages/promo', 'pages/home', 'promo'))).status).toBe(200)
  expect((await write(page('pages/promo-kid', 'pages/promo', 'kid'))).status).toBe(200)
  expect((await publish(['pages/promo', 'pages/promo-kid'])).body.map((i: any) => i.status)).toEqual([0, 0])

  // By a draft and a publish...
  expect((await write({ id: 'pages/promo/draft', contentType: 'product', fields: { sku: 'P' }, locales: { en: { name: 'Promo' } } })).status).toBe(200)
  expect((await publish(['pages/promo'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({
    documentId: 'pages/promo', collection: 'products', url: '', urls: {}, previousUrls: ['/promo', '/promo/kid'], scope: 'document',
  })
  // ...and in place on a published canonical.
  expect((await write(page('pages/moved', 'pages/home', 'moved'))).status).toBe(200)
  expect((await publish(['pages/moved'])).body[0].status).toBe(0)
  expect((await write({ id: 'pages/moved', contentType: 'product', fields: { sku: 'M' }, locales: { en: { name: 'Moved' } } })).status).toBe(200)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/moved', url: '', urls: {}, previousUrls: ['/moved'], scope: 'document' })
  // ...and in place with nothing but the type changed (same fields, same languages), both ways.
  const plain = { collection: 'pages', urls: false, label: 'Plain', fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }] }
  expect((await ctx.call('PUT', `/teams/${TEAM}/content-types/plain`, { body: plain })).status).toBe(200)
  expect((await write(page('pages/plain', 'pages/home', 'plain'))).status).toBe(200)
  expect((await publish(['pages/plain'])).body[0].status).toBe(0)
  expect((await write({ ...page('pages/plain', 'pages/home', 'plain'), contentType: 'plain' })).status).toBe(200)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/plain', locales: ['en'], url: '', urls: {}, previousUrls: ['/plain'], scope: 'document' })
  expect((await write(page('pages/plain', 'pages/home', 'plain'))).status).toBe(200)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/plain', locales: ['en'], url: '/plain', urls: { en: '/plain' }, previousUrls: [], scope: 'document' })

  // A parent that exists only as a draft serves nothing: its child has no URL, and that is known.
  expect((await write(page('pages/kiosk/draft', 'pages/home', 'shop'))).status).toBe(200)
  expect((await write(page('pages/kiosk-kid', 'pages/kiosk', 'kid'))).status).toBe(200)
  expect((await publish(['pages/kiosk-kid'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/kiosk-kid', url: '', urls: {}, previousUrls: [], scope: 'document' })
  // A parent that names no document serves nothing either (it was site scope: a whole-site purge
  // on every event of the page and the pages below it), for a publish, a child and a take-down.
  expect((await write(page('pages/orphan', 'pages/nowhere', 'orphan'))).status).toBe(200)
  expect((await publish(['pages/orphan'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/orphan', url: '', urls: {}, previousUrls: [], scope: 'document' })
  expect((await write(page('pages/orphan-kid', 'pages/orphan', 'kid'))).status).toBe(200)
  expect((await publish(['pages/orphan-kid'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/orphan-kid', urls: {}, scope: 'document' })
  expect((await ctx.call('POST', `/content/unpublish/${TEAM}`, { body: { ids: ['pages/orphan'] } })).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'pages/orphan', eventType: 'content.unpublished', url: '', previousUrls: [], scope: 'document' })
})

test('a content type\'s collection change moves its documents: pages are told by type, so later events still name every path', async () => {
  const { body: hook } = await create({ label: 'collections', provider: 'custom', target: rx.url })
  const payloads = () => loggedPayloads(hook.id)
  const type = (collection: string) => ({ collection, urls: true, label: 'Landing', fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }] })
  const write = (id: string, contentType: string, parent: string, slug: string) =>
    ctx.call('POST', `/content/${TEAM}`, { body: { id, contentType, fields: { parent }, locales: { en: { title: slug, slug } } } })
  const publish = (ids: string[]) => ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids } })
  expect((await ctx.call('PUT', `/teams/${TEAM}/content-types/landing`, { body: type('lpa') })).status).toBe(200)
  for (const [id, contentType, parent, slug] of [['lp/p', 'landing', 'pages/home', 'lp'], ['lp/k', 'landing', 'lp/p', 'k'], ['pages/q', 'page', 'lp/p', 'q']]) {
    expect((await write(id!, contentType!, parent!, slug!)).status).toBe(200)
  }
  expect((await publish(['lp/p', 'lp/k', 'pages/q'])).body.map((i: any) => i.status)).toEqual([0, 0, 0])
  expect((await ctx.call('PUT', `/teams/${TEAM}/content-types/landing`, { body: type('lpb') })).status).toBe(200)
  // Its documents, draft and canonical, list under the new collection; the events name it.
  expect((await write('lp/k/draft', 'landing', 'lp/p', 'k2')).status).toBe(200)
  const listed = await ctx.call('GET', `/content/list/${TEAM}?collection=lpb`)
  expect(listed.body.rows.map((r: any) => r.id)).toEqual(['lp/k', 'lp/p'])
  expect((await ctx.call('GET', `/content/list/${TEAM}?collection=lpa`)).body.rows).toEqual([])
  // A child of a page not republished since: its old and new paths (were none at all).
  expect((await publish(['lp/k'])).body[0].status).toBe(0)
  expect((await payloads())[0]).toMatchObject({ documentId: 'lp/k', collection: 'lpb', urls: { en: '/lp/k2' }, previousUrls: ['/lp/k'], scope: 'document' })
  // A rename of the parent moves every page below it, of either type (/lp/k2 was missing).
  expect((await write('lp/p/draft', 'landing', 'pages/home', 'lp2')).status).toBe(200)
  expect((await publish(['lp/p'])).body[0].status).toBe(0)
  const moved = (await payloads())[0]
  expect({ urls: moved.urls, previousUrls: [...moved.previousUrls].sort(), scope: moved.scope }).toEqual({ urls: { en: '/lp2' }, previousUrls: ['/lp', '/lp/k2', '/lp/q'], scope: 'document' })
})

test('a value outside a fixed set is refused naming the choices, not "Expected union value"', async () => {
  const events = await create({ label: 'x', provider: 'custom', target: rx.url, events: ['content.changed'] })
  expect({ status: events.status, body: events.body }).toEqual({
    status: 400, body: { error: 'invalid_body', message: 'Invalid request: /events/0 must be one of "content.published", "content.unpublished", "site.changed"' },
  })
  const provider = await create({ label: 'x', provider: 'ftp', target: rx.url })
  expect(provider.body.message).toBe('Invalid request: /provider must be one of "custom", "netlify", "vercel", "github"')
  const name = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/home', name: 5 } })
  expect({ status: name.status, body: name.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: 'Invalid request: /name must be string or null' } })
  // A string that breaks the string's own limit is told that limit, not the list of types.
  const long = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/home', name: 'x'.repeat(201) } })
  expect({ status: long.status, body: long.body }).toEqual({ status: 400, body: { error: 'invalid_name', message: 'Invalid request: /name Expected string length less or equal to 200' } })
})

test('the delivery log pages with limit and before, and filters by status; bad paging is a 400, an unknown before a 404', async () => {
  const hook = (await create({ label: 'paged', provider: 'custom', target: rx.url, events: ['content.published'] })).body
  const log = (query = '') => ctx.call('GET', `${base}/${hook.id}/deliveries${query}`, { token: TOKENS.webhooks })
  // Five test sends: delivered, failed (a 500), delivered, failed, delivered (newest last).
  rx.answers = [{ status: 200 }, { status: 500 }, { status: 200 }, { status: 500 }, { status: 200 }]
  for (let i = 0; i < 5; i++) expect((await ctx.call('POST', `${base}/${hook.id}/test`, { token: TOKENS.webhooks })).status).toBe(200)
  const all = (await log()).body as { eventId: string; status: string }[]
  expect(all.map((e) => e.status)).toEqual(['delivered', 'failed', 'delivered', 'failed', 'delivered'])
  const first = await log('?limit=2')
  expect(first.body.map((e: any) => e.eventId)).toEqual(all.slice(0, 2).map((e) => e.eventId))
  const second = await log(`?limit=2&before=${first.body[1].eventId}`)
  expect(second.body.map((e: any) => e.eventId)).toEqual(all.slice(2, 4).map((e) => e.eventId))
  const last = await log(`?limit=2&before=${second.body[1].eventId}`)
  expect(last.body.map((e: any) => e.eventId)).toEqual([all[4]!.eventId])
  expect((await log(`?before=${all[4]!.eventId}`)).body).toEqual([])
  const failed = await log('?status=failed')
  expect(failed.body.map((e: any) => e.eventId)).toEqual([all[1]!.eventId, all[3]!.eventId])
  expect(failed.body.every((e: any) => e.attempts[0].statusCode === 500)).toBe(true)
  expect((await log(`?status=failed&before=${all[1]!.eventId}`)).body.map((e: any) => e.eventId)).toEqual([all[3]!.eventId])

  for (const bad of ['?limit=0', '?limit=-1', '?limit=abc', '?limit=2.5', '?limit=%201', '?limit=1e1']) {
    const res = await log(bad)
    expect({ bad, status: res.status, body: res.body }).toEqual({ bad, status: 400, body: { error: 'invalid_body', message: '`limit` must be a positive integer.' } })
  }
  const status = await log('?status=lost')
  expect({ status: status.status, body: status.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: 'Invalid request: /status must be one of "pending", "delivered", "failed"' } })
  expect((await log('?limit=1000')).body).toHaveLength(5) // capped at 100, as versions' pageSize
  expect((await log('?limit=&before=')).body).toEqual(all) // empty is unset
  expect((await log('?status=')).body).toEqual(all) // a filter form's blank choice too
  // An eventId of another webhook, an unknown one, a hostile one: not a delivery of this webhook.
  const other = (await create({ label: 'other', provider: 'custom', target: rx.url })).body
  expect((await ctx.call('POST', `${base}/${other.id}/test`, { token: TOKENS.webhooks })).status).toBe(200)
  const otherEvent = (await ctx.call('GET', `${base}/${other.id}/deliveries`, { token: TOKENS.webhooks })).body[0].eventId
  for (const before of [otherEvent, 'no-such-event', encodeURIComponent('../../x'), encodeURIComponent('é')]) {
    const res = await log(`?before=${before}`)
    expect({ before, status: res.status, body: res.body }).toEqual({ before, status: 404, body: { error: 'not_found', message: expect.stringContaining('`before`') } })
  }
})
