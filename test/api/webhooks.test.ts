import { row, run } from '../rows'
import { expect, test } from 'bun:test'
import { TOKENS } from '../helpers'
import { base, ISO, webhooksFixture } from './webhooks-fixture'

const fx = webhooksFixture()
const { create } = fx

test('create answers 201 with the record and the full generated secret, once', async () => {
  const res = await create({ label: 'Site', provider: 'custom', target: fx.rx.url })
  expect(res.status).toBe(201)
  const secret = res.body.secret as string
  expect(secret.length).toBeGreaterThanOrEqual(43) // 32 bytes base64url
  expect(res.body).toEqual({
    id: expect.any(String), label: 'Site', provider: 'custom', target: fx.rx.url,
    events: ['content.published', 'content.unpublished'], secretLast4: secret.slice(-4), options: {}, signatureScheme: 'service',
    createdAt: ISO, updatedAt: ISO, secret,
  })
  const one = await fx.ctx.call('GET', `${base}/${res.body.id}`, { token: TOKENS.webhooks })
  const { secret: _s, ...record } = res.body
  expect(one).toMatchObject({ status: 200, body: record })
  expect(one.text).not.toContain(secret)
  const list = await fx.ctx.call('GET', base, { token: TOKENS.webhooks })
  expect(list.status).toBe(200)
  expect(list.body).toContainEqual(record)
  expect(list.text).not.toContain(secret)
})

// User-entered secrets are at least 32 characters (contract.md "Webhooks").
const OWN = 'my-own-secret-0123456789-abcdef-1234'
const ROTATED = 'rotated-secret-0123456789-abcdefabcd'

test('a user-entered secret is kept and shown by its last four characters afterwards', async () => {
  const res = await create({ label: 'Own', provider: 'custom', target: fx.rx.url, events: ['site.changed'], secret: OWN })
  expect(res.body).toMatchObject({ secret: OWN, secretLast4: '1234', events: ['site.changed'] })
  const patched = await fx.ctx.call('PATCH', `${base}/${res.body.id}`, { token: TOKENS.webhooks, body: { label: 'Renamed' } })
  expect(patched.status).toBe(200)
  expect(patched.body.secret).toBeUndefined()
  expect(patched.body).toMatchObject({ label: 'Renamed', secretLast4: '1234' })
  const rotated = await fx.ctx.call('PATCH', `${base}/${res.body.id}`, { token: TOKENS.webhooks, body: { secret: ROTATED } })
  expect(rotated.body).toMatchObject({ secret: ROTATED, secretLast4: 'abcd' })
  const again = await fx.ctx.call('GET', `${base}/${res.body.id}`, { token: TOKENS.webhooks })
  expect(again.body.secret).toBeUndefined()
})

test('a short or whitespace secret is refused on create and on update; the stored one stays', async () => {
  for (const secret of ['abc', '   ', 'x'.repeat(31), `${OWN}\n`]) {
    const res = await create({ label: 'Weak', provider: 'custom', target: fx.rx.url, secret })
    expect({ secret, status: res.status, body: res.body }).toEqual({ secret, status: 400, body: { error: 'invalid_secret', message: expect.any(String) } })
  }
  const list = await fx.ctx.call('GET', base, { token: TOKENS.webhooks })
  expect(list.body.map((w: { label: string }) => w.label)).not.toContain('Weak')
  const hook = (await create({ label: 'Kept', provider: 'custom', target: fx.rx.url, secret: OWN })).body
  for (const secret of ['abc', ' '.repeat(40)]) {
    const res = await fx.ctx.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body: { secret, label: 'Changed' } })
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_secret' })
  }
  const got = await row(fx.ctx.db, 'SELECT label, secret FROM webhooks WHERE id = ?', hook.id)
  expect(got).toEqual({ label: 'Kept', secret: OWN })
  // Empty still means "generate one" (create) and "keep the old one" (update).
  expect((await create({ label: 'Gen', provider: 'custom', target: fx.rx.url, secret: '' })).body.secret).toHaveLength(43)
  const kept = await fx.ctx.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body: { secret: '' } })
  expect(kept).toMatchObject({ status: 200, body: { secretLast4: '1234' } })
  expect(kept.body.secret).toBeUndefined()
})

test('a label with a lone surrogate is 400 invalid_body on create and update (it would be stored as U+FFFD, not as answered)', async () => {
  const refused = { status: 400, body: { error: 'invalid_body', message: '`label` must be well-formed text (no lone surrogates).' } }
  const res = await create({ label: 'Bad \ud800', provider: 'custom', target: fx.rx.url })
  expect({ status: res.status, body: res.body }).toEqual(refused)
  const hook = (await create({ label: 'Fine ünïcødé 🚀', provider: 'custom', target: fx.rx.url })).body
  const patched = await fx.ctx.call('PATCH', `${base}/${hook.id}`, { token: TOKENS.webhooks, body: { label: '\udfffx' } })
  expect({ status: patched.status, body: patched.body }).toEqual(refused)
  expect((await fx.ctx.call('GET', `${base}/${hook.id}`, { token: TOKENS.webhooks })).body.label).toBe('Fine ünïcødé 🚀')
})

test('secretLast4 is the last four characters, never half an emoji', async () => {
  const secret = `${'Z'.repeat(33)}\u{1F680}abc`
  const hook = await create({ label: 'Emoji', provider: 'custom', target: fx.rx.url, secret })
  expect({ status: hook.status, secretLast4: hook.body.secretLast4 }).toEqual({ status: 201, secretLast4: '\u{1F680}abc' })
  expect((await fx.ctx.call('GET', `${base}/${hook.body.id}`, { token: TOKENS.webhooks })).body.secretLast4).toBe('\u{1F680}abc')
})

test('a secret over 500 characters is invalid_secret like a short one, not a schema error', async () => {
  const res = await create({ label: 'Long', provider: 'custom', target: fx.rx.url, secret: 'a'.repeat(501) })
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_secret' })
  expect((await create({ label: 'Typed', provider: 'custom', target: fx.rx.url, secret: 42 })).body.error).toBe('invalid_body')
})

test('a secret with a lone surrogate or a control character is invalid_secret (it would be stored as another key)', async () => {
  for (const secret of ['\ud800'.repeat(32), '\u0000'.repeat(32), `${OWN}\u0007`]) {
    const res = await create({ label: 'Odd', provider: 'custom', target: fx.rx.url, secret })
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_secret' })
  }
  expect((await row(fx.ctx.db, "SELECT COUNT(*) AS n FROM webhooks WHERE label = 'Odd'"))).toEqual({ n: 0 })
})

test('a target with spaces or control characters, a label with control characters and a github target with dot segments, a query or a fragment are refused', async () => {
  for (const target of [`${fx.rx.url}\u0000`, `${fx.rx.url}/a\tb`, ` ${fx.rx.url}`, `${fx.rx.url}/\ud800`, `${fx.rx.url}/p/\u00a0`, `${fx.rx.url}/a\u2028b`, `${fx.rx.url}/\ufeff`]) {
    const res = await create({ label: 'x', provider: 'custom', target })
    expect({ target, status: res.status, error: res.body.error }).toEqual({ target, status: 400, error: 'invalid_target' })
  }
  for (const label of ['a\u0000b', 'line\nbreak']) {
    const res = await create({ label, provider: 'custom', target: fx.rx.url })
    expect({ label, status: res.status, error: res.body.error }).toEqual({ label, status: 400, error: 'invalid_body' })
  }
  // Dot segments, and a query or fragment inside the repository path: each would send the token to another endpoint than /dispatches.
  for (const target of ['https://api.github.com/repos/../../dispatches', 'https://api.github.com/repos/o/r#/dispatches', 'https://api.github.com/repos/o/r?x=/dispatches', 'https://api.github.com/repos/o?/r/dispatches']) {
    const res = await create({ label: 'gh', provider: 'github', target, options: { token: 'ghp_secret_token_9876' } })
    expect({ target, status: res.status, error: res.body.error }).toEqual({ target, status: 400, error: 'invalid_target' })
  }
})

test('a provider token is kept only for github: refused on another provider, dropped when a github webhook changes provider', async () => {
  const custom = await create({ label: 'c', provider: 'custom', target: fx.rx.url, options: { token: 'ghp_secret_token_9876' } })
  expect({ status: custom.status, body: custom.body }).toEqual({ status: 400, body: { error: 'invalid_body', message: '`options.token` is only for github webhooks; this provider sends none.' } })
  const gh = (await create({ label: 'gh', provider: 'github', target: 'https://api.github.com/repos/acme/site/dispatches', options: { token: 'ghp_secret_token_9876' } })).body
  const moved = await fx.ctx.call('PATCH', `${base}/${gh.id}`, { token: TOKENS.webhooks, body: { provider: 'custom', target: fx.rx.url } })
  expect({ status: moved.status, options: moved.body.options }).toEqual({ status: 200, options: {} })
  const stored = (await row(fx.ctx.db, 'SELECT options FROM webhooks WHERE id = ?', gh.id)) as { options: string }
  expect(stored.options).not.toContain('ghp_secret_token')
  const again = await fx.ctx.call('PATCH', `${base}/${gh.id}`, { token: TOKENS.webhooks, body: { options: { token: 'ghp_secret_token_9876' } } })
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
  const patch = (body: Record<string, unknown>) => fx.ctx.call('PATCH', `${base}/${gh.id}`, { token: TOKENS.webhooks, body })
  // `null` takes the event type back to the default (the event's own type); the token stays.
  const cleared = await patch({ options: { eventType: null } })
  expect({ status: cleared.status, options: cleared.body.options }).toEqual({ status: 200, options: { tokenLast4: '9876' } })
  expect(JSON.parse(((await row(fx.ctx.db, 'SELECT options FROM webhooks WHERE id = ?', gh.id)) as { options: string }).options)).toEqual({ token: 'ghp_secret_token_9876' })
  expect((await patch({ options: { token: null } })).status).toBe(400) // a token is replaced, never removed (the schema takes no null)
  expect((await patch({ options: { eventType: 'again' } })).body.options).toEqual({ eventType: 'again', tokenLast4: '9876' })
  // Switched to another provider, it keeps no github option at all.
  const moved = await patch({ provider: 'vercel', target: 'https://api.vercel.com/v1/integrations/deploy/x' })
  expect({ status: moved.status, options: moved.body.options }).toEqual({ status: 200, options: {} })
  expect(((await row(fx.ctx.db, 'SELECT options FROM webhooks WHERE id = ?', gh.id)) as { options: string }).options).toBe('{}')
})

test('a target is written the one way every URL parser reads alike: no backslash, `https://` then a host, no empty user part, no port 0', async () => {
  for (const target of ['https://vm\\@example.com/', 'https://example.com\\hook', 'https:example.com/x', 'https:/example.com/x', 'https://@example.com/x', 'https://example.com:0/x', `http://127.0.0.1:${fx.rx.port}\\x`]) {
    const res = await create({ label: 'x', provider: 'custom', target })
    expect({ target, status: res.status, error: res.body.error }).toEqual({ target, status: 400, error: 'invalid_target' })
  }
  // A host the URL parser reads as another: shown as written, it would be sent to example.com (or localhost).
  const spellings = ['https://exa\u200bmple.com/', 'https://exa\u00admple.com/', 'https://ex\u034fample.com/', 'https://EXAMPLE.\u2102OM/',
    'https://\ufb00.example.com/', 'https://example.com\u3002/', 'https://ex%61mple.com/', 'https://b\u00fc\u200bcher.example/', `http://local\u200bhost:${fx.rx.port}/x`, `http://127.1:${fx.rx.port}/x`, 'https://\u212Aexample.com/', 'https://\u0130nfo.example/']
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
  const legacy = (await create({ label: 'legacy', provider: 'custom', target: fx.rx.url })).body
  await run(fx.ctx.db, 'UPDATE webhooks SET target = ? WHERE id = ?', `${fx.rx.url}?q=a\\b`, legacy.id)
  const renamed = await fx.ctx.call('PATCH', `${base}/${legacy.id}`, { token: TOKENS.webhooks, body: { label: 'legacy, renamed' } })
  expect({ status: renamed.status, target: renamed.body.target }).toEqual({ status: 200, target: `${fx.rx.url}?q=a\\b` })
  const sent = await fx.ctx.call('POST', `${base}/${legacy.id}/test`, { token: TOKENS.webhooks })
  expect({ status: sent.status, delivered: sent.body.delivered }).toEqual({ status: 200, delivered: true })
  // Changing it to another target not written plainly is refused like a new one.
  const changed = await fx.ctx.call('PATCH', `${base}/${legacy.id}`, { token: TOKENS.webhooks, body: { target: `${fx.rx.url}?q=c\\d` } })
  expect({ status: changed.status, error: changed.body.error }).toEqual({ status: 400, error: 'invalid_target' })
})
