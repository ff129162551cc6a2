import { afterAll, expect, test } from 'bun:test'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { countRevisions, listRevisions } from '../../db/store'
import { createApp } from '../../api/app'
import { loadConfig } from '../../core/config'
import { createLogger } from '../../core/log'
import { createMetrics } from '../../core/metrics'
import { putContentType, readLocales, readLocalization, setLocalization } from '../../core/teams/settings'
import { makeTestDir, testSeed, TOKENS } from '../helpers'

const dir = makeTestDir('seed-test-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const root = join(import.meta.dir, '../..')

function runSeed(file: string, databasePath: string) {
  const proc = Bun.spawnSync(['bun', 'run', 'cli', 'seed', file], { cwd: root, env: { ...process.env, DATABASE_PATH: databasePath } })
  return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() }
}

test('bun run cli seed is idempotent and publishes as user cli with one version per document', () => {
  const file = join(dir, 'seed.json')
  const seed = testSeed() as { teams: { documents?: { locales?: unknown }[] }[] }
  seed.teams[0]!.documents!.push({ id: 'pages/draft-only', contentType: 'page', published: false, fields: { parent: null }, locales: { en: { title: 'D', slug: 'd' } } } as never)
  writeFileSync(file, JSON.stringify(seed))
  const path = join(dir, 'content.db')

  const first = runSeed(file, path)
  expect(first.code).toBe(0)
  expect(JSON.parse(first.out)).toMatchObject({ ok: true, teams: 2, documents: 2, published: 1 })
  const second = runSeed(file, path)
  expect(second.code).toBe(0)
  expect(JSON.parse(second.out)).toMatchObject({ ok: true, documents: 0, published: 0 })

  const db = openDb(path)
  try {
    expect(countRevisions(db, 'acme', 'pages/home')).toBe(1)
    expect(countRevisions(db, 'acme', 'pages/draft-only')).toBe(0)
    const [rev] = listRevisions(db, 'acme', 'pages/home', 0, 1)
    expect(rev!.body).toMatchObject({ __publishedBy: 'cli', __publishedAt: expect.stringMatching(/\.\d{7}Z$/) })
  } finally {
    db.$client.close()
  }

  // A changed published document is published again: one more version, still by cli.
  seed.teams[0]!.documents![0]!.locales = { en: { title: 'Home 2', slug: '' } }
  writeFileSync(file, JSON.stringify(seed))
  expect(JSON.parse(runSeed(file, path).out)).toMatchObject({ documents: 1, published: 1 })
  const again = openDb(path)
  expect(countRevisions(again, 'acme', 'pages/home')).toBe(2)
  again.$client.close()
})

test("a seed publishes the file's content, never an editor's draft, and is idempotent again at once", async () => {
  const file = join(dir, 'draft-seed.json')
  writeFileSync(file, JSON.stringify(testSeed()))
  const path = join(dir, 'draft-seed.db')
  expect(runSeed(file, path).code).toBe(0)
  const db = openDb(path)
  const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path, LOG_LEVEL: 'silent' }), log: createLogger('silent', 'test'), metrics: createMetrics() })
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await app.handle(new Request(`http://localhost${url}`, {
      method, headers: { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    }))
    return { status: res.status, body: await res.json() as any }
  }
  try {
    const live = (await call('GET', '/content/acme?id=pages/home')).body
    const fileLocales = live.locales
    // An editor's unreviewed draft, and a live canonical changed in place since the seed.
    const draft = { id: 'pages/home/draft', contentType: 'page', fields: live.fields, locales: { ...fileLocales, en: { ...fileLocales.en, title: 'UNREVIEWED EDIT' } } }
    expect((await call('POST', '/content/acme', draft)).status).toBe(200)
    expect((await call('POST', '/content/acme', { ...live, locales: { ...fileLocales, en: { ...fileLocales.en, title: 'changed live' } } })).status).toBe(200)

    const first = runSeed(file, path)
    expect(JSON.parse(first.out)).toMatchObject({ ok: true, documents: 1, published: 1 })
    const [version] = listRevisions(db, 'acme', 'pages/home', 0, 1)
    expect(version!.body).toMatchObject({ locales: fileLocales, __publishedBy: 'cli' })
    expect((await call('GET', '/content/acme?id=pages/home')).body.locales).toEqual(fileLocales)
    // The editor's draft is still theirs, still dirty.
    const kept = (await call('GET', '/content/acme?id=pages/home/draft')).body
    expect(kept).toMatchObject({ locales: { en: { title: 'UNREVIEWED EDIT' } }, __dirtyLocales: ['en'] })

    expect(JSON.parse(runSeed(file, path).out)).toMatchObject({ ok: true, documents: 0, published: 0 })
    expect(countRevisions(db, 'acme', 'pages/home')).toBe(2)
  } finally {
    db.$client.close()
  }
})

test('a seed that changes an existing team\'s languages or templates records site changes by cli; an unchanged one none', () => {
  const file = join(dir, 'site-seed.json')
  const seed = testSeed() as any
  writeFileSync(file, JSON.stringify(seed))
  const path = join(dir, 'site-seed.db')
  const changes = () => {
    const db = openDb(path)
    try {
      return db.$client.query('SELECT team_id AS teamId, status, user_id AS userId FROM site_changes ORDER BY id').all()
    } finally {
      db.$client.close()
    }
  }
  expect(runSeed(file, path).code).toBe(0)
  expect(changes()).toEqual([]) // new teams: no site to tell yet
  expect(runSeed(file, path).code).toBe(0)
  expect(changes()).toEqual([])
  // A new default language, and a template the site sees (a new field); icon alone is editor-only.
  seed.teams[0].defaultLocale = 'de'
  seed.teams[0].contentTypes[1].fields.push({ name: 'price' })
  seed.teams[1].contentTypes[0].icon = 'doc'
  writeFileSync(file, JSON.stringify(seed))
  expect(runSeed(file, path).code).toBe(0)
  expect(changes()).toEqual([
    { teamId: 'acme', status: 'locales', userId: 'cli' },
    { teamId: 'acme', status: 'template', userId: 'cli' },
  ])
  expect(runSeed(file, path).code).toBe(0)
  expect(changes()).toHaveLength(2)
})

test('a seed changes languages and templates as the settings routes do: fallbacks naming a removed locale go, documents move with a new collection, urls:false spelled out is no change, en and EN are one locale', () => {
  const file = join(dir, 'settings-seed.json')
  const seed = testSeed() as any
  seed.teams[0].documents.push({ id: 'products/p1', contentType: 'product', fields: { sku: 'A1' }, locales: { en: { name: 'P' } } })
  writeFileSync(file, JSON.stringify(seed))
  const path = join(dir, 'settings-seed.db')
  expect(runSeed(file, path).code).toBe(0)
  const db = openDb(path)
  try {
    const cli = { teamId: 'acme', userId: 'cli' }
    setLocalization(db, cli, { fallbacks: { de: 'fr', fr: 'en' } })
    putContentType(db, cli, 'note', { collection: 'notes', fields: [] }) // stored without `urls`
    const changes = () => db.$client.query('SELECT status FROM site_changes ORDER BY id').all().map((r: any) => r.status)
    const before = changes()

    // The same type with `urls: false` spelled out: what a PUT of it would store, no site change.
    seed.teams[0].contentTypes.push({ name: 'note', collection: 'notes', fields: [], urls: false })
    writeFileSync(file, JSON.stringify(seed))
    expect(runSeed(file, path).code).toBe(0)
    expect(changes()).toEqual(before)

    // French goes, and products move to a new collection.
    seed.teams[0].locales = ['en', 'de']
    seed.teams[0].contentTypes[1].collection = 'goods'
    writeFileSync(file, JSON.stringify(seed))
    expect(runSeed(file, path).code).toBe(0)
    expect(readLocalization(db, 'acme')).toEqual({ fallbacks: {} })
    expect(changes()).toEqual([...before, 'locales', 'template'])
    const moved = db.$client.query("SELECT collection FROM documents WHERE team_id = 'acme' AND id = 'products/p1'").get() as { collection: string }
    expect(moved.collection).toBe('goods')

    seed.teams[0].locales = ['en', 'EN']
    writeFileSync(file, JSON.stringify(seed))
    const refused = runSeed(file, path)
    expect(refused.code).not.toBe(0)
    expect(refused.err).toContain('Locales must be unique (ignoring case).')
    expect(readLocales(db, 'acme').locales).toEqual(['en', 'de'])
  } finally {
    db.$client.close()
  }
})

test('a seed publishes a parent before a child listed first, so the child event names its path', () => {
  const file = join(dir, 'order-seed.json')
  const seed = testSeed() as any
  const path = join(dir, 'order-seed.db')
  writeFileSync(file, JSON.stringify(seed))
  expect(runSeed(file, path).code).toBe(0)
  const db = openDb(path)
  try {
    db.$client.run(`INSERT INTO webhooks (id, team_id, label, provider, target, secret, events, options, created_at, updated_at)
      VALUES ('w1', 'acme', 'l', 'custom', 'https://example.com/h', '${'s'.repeat(43)}', '["content.published"]', '{}', '', '')`)
    seed.teams[0].documents.push(
      { id: 'pages/item', contentType: 'page', published: true, fields: { parent: 'pages/shop' }, locales: { en: { title: 'I', slug: 'item' } } },
      { id: 'pages/shop', contentType: 'page', published: true, fields: { parent: 'pages/home' }, locales: { en: { title: 'S', slug: 'shop' } } },
    )
    writeFileSync(file, JSON.stringify(seed))
    expect(JSON.parse(runSeed(file, path).out)).toMatchObject({ ok: true, published: 2 })
    const urls = (db.$client.query('SELECT payload FROM outbox JOIN outbox_events USING (event_id) ORDER BY seq').all() as { payload: string }[])
      .map((r) => JSON.parse(r.payload)).map((p) => [p.documentId, p.urls])
    expect(urls).toEqual([['pages/shop', { en: '/shop' }], ['pages/item', { en: '/shop/item' }]])
  } finally {
    db.$client.close()
  }
})

test('re-seeding a live page with a new slug and "published": true sends one event naming the old path; without it, one in-place event', () => {
  const file = join(dir, 'reslug-seed.json')
  const path = join(dir, 'reslug-seed.db')
  const seed = testSeed() as any
  seed.teams[0].documents.push({ id: 'pages/about', contentType: 'page', published: true, fields: { parent: 'pages/home' }, locales: { en: { title: 'A', slug: 'about' } } })
  writeFileSync(file, JSON.stringify(seed))
  expect(runSeed(file, path).code).toBe(0)
  const db = openDb(path)
  const events = () => (db.$client.query('SELECT payload FROM outbox JOIN outbox_events USING (event_id) ORDER BY seq').all() as { payload: string }[])
    .map((r) => JSON.parse(r.payload)).map((p) => ({ documentId: p.documentId, userId: p.userId, urls: p.urls, previousUrls: p.previousUrls }))
  try {
    db.$client.run(`INSERT INTO webhooks (id, team_id, label, provider, target, secret, events, options, created_at, updated_at)
      VALUES ('w1', 'acme', 'l', 'custom', 'https://example.com/h', '${'s'.repeat(43)}', '["content.published"]', '{}', '', '')`)
    const about = seed.teams[0].documents.at(-1)
    about.locales.en.slug = 'about-us'
    writeFileSync(file, JSON.stringify(seed))
    expect(JSON.parse(runSeed(file, path).out)).toMatchObject({ ok: true, documents: 1, published: 1 })
    expect(events()).toEqual([{ documentId: 'pages/about', userId: 'cli', urls: { en: '/about-us' }, previousUrls: ['/about'] }])
    expect(countRevisions(db, 'acme', 'pages/about')).toBe(2)

    // Without "published": true the live page is rewritten in place (as a POST of the canonical
    // with ChangeLiveContent): its one event, no new Published Version.
    about.locales.en.slug = 'team'
    delete about.published
    writeFileSync(file, JSON.stringify(seed))
    expect(JSON.parse(runSeed(file, path).out)).toMatchObject({ ok: true, documents: 1, published: 0 })
    expect(events().slice(1)).toEqual([{ documentId: 'pages/about', userId: 'cli', urls: { en: '/team' }, previousUrls: ['/about-us'] }])
    expect(countRevisions(db, 'acme', 'pages/about')).toBe(2)
  } finally {
    db.$client.close()
  }
})

test('a seed rotates a user\'s token with a new one and revokes it with "token": null', async () => {
  const file = join(dir, 'tokens-seed.json')
  const path = join(dir, 'tokens-seed.db')
  const seed = testSeed() as { teams: { users: { id: string; token: string | null }[] }[] }
  writeFileSync(file, JSON.stringify(seed))
  expect(runSeed(file, path).code).toBe(0)
  const db = openDb(path)
  const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path, LOG_LEVEL: 'silent' }), log: createLogger('silent', 'test'), metrics: createMetrics() })
  const status = async (token: string) =>
    (await app.handle(new Request('http://localhost/content/acme?id=pages/home', { headers: { authorization: `Bearer ${token}` } }))).status
  const translator = seed.teams[0]!.users.find((u) => u.id === 'u-translator')!
  try {
    expect(await status(TOKENS.translator)).toBe(200)
    translator.token = 'a-new-token-for-the-translator-0123456789'
    writeFileSync(file, JSON.stringify(seed))
    expect(runSeed(file, path).code).toBe(0)
    expect({ old: await status(TOKENS.translator), rotated: await status(translator.token) }).toEqual({ old: 401, rotated: 200 })
    const rotated = translator.token
    translator.token = null
    writeFileSync(file, JSON.stringify(seed))
    expect(runSeed(file, path).code).toBe(0)
    expect({ revoked: await status(rotated), editor: await status(TOKENS.editor) }).toEqual({ revoked: 401, editor: 200 })
  } finally {
    db.$client.close()
  }
})

test('a seed that fails partway writes nothing: no team, no document, no version, no event', () => {
  const file = join(dir, 'partway-seed.json')
  const path = join(dir, 'partway-seed.db')
  const seed = testSeed() as any
  writeFileSync(file, JSON.stringify(seed))
  expect(runSeed(file, path).code).toBe(0)
  const db = openDb(path)
  const state = () => ['teams', 'content_types', 'documents', 'revisions', 'outbox', 'site_changes']
    .map((t) => db.$client.query(`SELECT * FROM ${t}`).all())
  try {
    const before = JSON.stringify(state())
    // A new team, a changed title and a new page, then a document of an unknown content type.
    seed.teams.push({ ...seed.teams[0], id: 'third', documents: [] })
    seed.teams[0].locales = [...seed.teams[0].locales, 'it']
    seed.teams[0].documents[0].locales.en.title = 'Changed'
    seed.teams[0].documents.push(
      { id: 'pages/new', contentType: 'page', published: true, fields: { parent: 'pages/home' }, locales: { en: { title: 'N', slug: 'new' } } },
      { id: 'pages/bad', contentType: 'nope', published: true, locales: { en: { title: 'B', slug: 'b' } } },
    )
    writeFileSync(file, JSON.stringify(seed))
    const res = runSeed(file, path)
    // It names the file's entry and what is wrong with it.
    expect({ code: res.code, err: res.err.split('\n').find((line) => line.startsWith('seed failed')) }).toEqual({ code: 1, err: 'seed failed: Team acme, document pages/bad: Unknown content type: nope.' })
    expect(JSON.stringify(state())).toBe(before)
    // On a new database the same: it is left empty (no team, no document), and `bun start` seeds its demo team into it.
    const fresh = join(dir, 'partway-fresh.db')
    expect(runSeed(file, fresh).code).toBe(1)
    const empty = new Database(fresh)
    expect(empty.query('SELECT (SELECT COUNT(*) FROM teams) AS teams, (SELECT COUNT(*) FROM documents) AS documents').get()).toEqual({ teams: 0, documents: 0 })
    empty.close()
  } finally {
    db.$client.close()
  }
})

test('a seed file that cannot be read fails before any database is created', () => {
  const databasePath = join(dir, 'never', 'content.db')
  for (const [file, reason] of [[join(dir, 'missing.json'), 'no such file'], [join(dir, 'broken.json'), 'JSON Parse error']] as const) {
    if (file.endsWith('broken.json')) writeFileSync(file, '{"teams": [')
    const res = runSeed(file, databasePath)
    expect({ code: res.code, err: res.err.includes(`seed failed: cannot read ${JSON.stringify(file)}: ${reason}`) }).toEqual({ code: 1, err: true })
  }
  expect(existsSync(join(dir, 'never'))).toBe(false)
})

test('an invalid seed file fails with a message and exit code 1', () => {
  const file = join(dir, 'bad.json')
  writeFileSync(file, JSON.stringify({ teams: [{ id: 'x' }] }))
  const res = runSeed(file, join(dir, 'bad.db'))
  expect(res.code).toBe(1)
  expect(res.err).toContain('Invalid seed file')
  // The content type rules of the api hold for a seed file too: a name as the route takes it, each field once.
  const type = (name: string, fields: { name: string }[]) => ({ teams: [{ id: 'x', workspaceId: 'w', locales: ['en'], defaultLocale: 'en', contentTypes: [{ name, collection: 'c', fields }] }] })
  writeFileSync(file, JSON.stringify(type('../x', [{ name: 'title' }])))
  expect(runSeed(file, join(dir, 'bad2.db'))).toMatchObject({ code: 1, err: expect.stringContaining('Invalid seed file') })
  writeFileSync(file, JSON.stringify(type('page', [{ name: 'title' }, { name: 'title' }])))
  expect(runSeed(file, join(dir, 'bad3.db'))).toMatchObject({ code: 1, err: expect.stringContaining('Field "title" is listed twice.') })
  // A union names what it takes (TypeBox alone says "Expected union value"): a token too short says so.
  const user = (token: unknown) => ({ teams: [{ id: 'x', workspaceId: 'w', locales: ['en'], defaultLocale: 'en', users: [{ id: 'u', token, capabilities: [] }] }] })
  writeFileSync(file, JSON.stringify(user('short')))
  expect(runSeed(file, join(dir, 'bad4.db'))).toMatchObject({ code: 1, err: expect.stringContaining('Invalid seed file at /teams/0/users/0/token: Expected string length greater or equal to 8') })
  writeFileSync(file, JSON.stringify(user(12345678)))
  expect(runSeed(file, join(dir, 'bad5.db'))).toMatchObject({ code: 1, err: expect.stringContaining('Invalid seed file at /teams/0/users/0/token: must be string or null') })
  // A token no request could sign in with (the api reads at most 512 printable characters, no
  // spaces) is refused, not stored for a user who can never sign in.
  writeFileSync(file, JSON.stringify(user('x'.repeat(513))))
  expect(runSeed(file, join(dir, 'bad6.db'))).toMatchObject({ code: 1, err: expect.stringContaining('Invalid seed file at /teams/0/users/0/token: Expected string length less or equal to 512') })
  for (const token of ['two words here', 'tab\there-token', 'tökenätoken']) {
    writeFileSync(file, JSON.stringify(user(token)))
    expect(runSeed(file, join(dir, 'bad7.db'))).toMatchObject({ code: 1, err: expect.stringContaining('Team x, user u: a token is 8 to 512 printable ASCII characters without spaces') })
    expect(existsSync(join(dir, 'bad7.db'))).toBe(false)
  }
})

test('a seed file naming a document or a team twice, or a team id that is no path segment, fails with exit 1 and writes nothing', () => {
  const file = join(dir, 'repeat.json')
  const doc = { id: 'pages/dup', contentType: 'page', published: true, fields: { parent: null }, locales: { en: { title: 'D', slug: 'dup' } } }
  const team = (id: string, documents: unknown[] = []) => ({ id, workspaceId: 'w', locales: ['en'], defaultLocale: 'en', contentTypes: [{ name: 'page', collection: 'pages', urls: true, fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }] }], documents })
  const cases: [unknown, string][] = [
    [{ teams: [team('t1', [doc, doc])] }, 'Team t1, document "pages/dup": named twice in the seed file.'],
    [{ teams: [team('t1'), team('t1')] }, 'Team t1 is named twice in the seed file.'],
    ...['a/b', 'x\ny', '__proto__', '../t', ''].map((id): [unknown, string] => [{ teams: [team(id)] }, 'Invalid seed file at /teams/0/id']),
  ]
  for (const [i, [content, message]] of cases.entries()) {
    writeFileSync(file, JSON.stringify(content))
    const databasePath = join(dir, `repeat-${i}.db`)
    expect(runSeed(file, databasePath)).toMatchObject({ code: 1, err: expect.stringContaining(message) })
    // Refused before any database was opened: none was created.
    expect(existsSync(databasePath)).toBe(false)
  }
})

test('an argument too many is a usage error (exit 2), not dropped; --help prints the usage to stdout (exit 0)', () => {
  const extra = (...args: string[]) => Bun.spawnSync(['bun', 'cli/main.ts', ...args], { cwd: root, env: { ...process.env, DATABASE_PATH: join(dir, 'extra.db') } })
  for (const args of [['seed', 'a.json', 'b.json'], ['push-index', 'i.json', 'acme', 'more'], []]) {
    const proc = extra(...args)
    expect({ args, code: proc.exitCode, err: proc.stderr.toString().trim() }).toEqual({ args, code: 2, err: expect.stringMatching(/^usage: bun run cli seed <file\.json>/) })
  }
  for (const flag of ['--help', '-h', 'help']) {
    const proc = extra(flag)
    expect({ flag, code: proc.exitCode, out: proc.stdout.toString().trim(), err: proc.stderr.toString() }).toEqual({ flag, code: 0, out: expect.stringMatching(/^usage: bun run cli seed <file\.json>/), err: '' })
  }
  expect(existsSync(join(dir, 'extra.db'))).toBe(false)
})

test('bun run cli push-index <file> works without a team on a one-team database (contract.md), and asks for one otherwise', () => {
  const index = join(dir, 'index.json')
  writeFileSync(index, JSON.stringify({ fields: ['title'] }))
  const push = (path: string, ...team: string[]) => {
    const proc = Bun.spawnSync(['bun', 'run', 'cli', 'push-index', index, ...team], { cwd: root, env: { ...process.env, DATABASE_PATH: path } })
    return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() }
  }
  const one = testSeed() as { teams: unknown[] }
  one.teams = one.teams.slice(0, 1)
  const oneFile = join(dir, 'one-team.json')
  writeFileSync(oneFile, JSON.stringify(one))
  const onePath = join(dir, 'one-team.db')
  expect(runSeed(oneFile, onePath).code).toBe(0)
  const pushed = push(onePath)
  expect(pushed.code).toBe(0)
  expect(JSON.parse(pushed.out)).toMatchObject({ ok: true, indexGeneration: 1 })

  const twoFile = join(dir, 'two-teams.json')
  writeFileSync(twoFile, JSON.stringify(testSeed()))
  const twoPath = join(dir, 'two-teams.db')
  expect(runSeed(twoFile, twoPath).code).toBe(0)
  const refused = push(twoPath)
  expect(refused.code).toBe(1)
  expect(refused.err).toContain('name the team: the database holds 2 teams')
  expect(JSON.parse(push(twoPath, 'acme').out)).toMatchObject({ ok: true, indexGeneration: 1 })
  expect(push(join(dir, 'no-team.db'))).toMatchObject({ code: 1, err: expect.stringContaining('push-index failed: the database holds no team yet: seed one first') })

  // What the route refuses, the command refuses: the definition is a JSON object. Nothing is deployed.
  for (const bad of ['null', '"just a string"', '[1]', '7']) {
    writeFileSync(index, bad)
    expect({ bad, ...push(onePath) }).toMatchObject({ bad, code: 1, err: expect.stringContaining('\npush-index failed: the content index definition must be a JSON object\n') })
  }
  // And the route's limits: nesting, a number that overflows, MAX_BODY_BYTES.
  const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) })
  for (const [content, message] of [
    [JSON.stringify({ fields: deep(101) }), 'The content index definition nests deeper than 100 levels.'],
    ['{"boost": 1e400}', 'The content index definition holds a number too large to store'],
    [JSON.stringify({ fields: ['x'.repeat(1_100_000)] }), 'The file exceeds 1048576 bytes (MAX_BODY_BYTES).'],
  ] as const) {
    writeFileSync(index, content)
    expect({ message, ...push(onePath) }).toMatchObject({ message, code: 1, err: expect.stringContaining(`push-index failed: ${message}`) })
  }
  const db = new Database(onePath)
  expect(db.query('SELECT index_generation AS n FROM teams').get()).toEqual({ n: 1 })
  db.close()
})

test('a seeded document meets the limits of POST /content: nesting, overflowing numbers, MAX_BODY_BYTES (exit 1, nothing written)', () => {
  const file = join(dir, 'limits-seed.json')
  const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) })
  const withDoc = (fields: Record<string, unknown>) => {
    const seed = testSeed() as any
    seed.teams[0].documents.push({ id: 'pages/big', contentType: 'page', published: true, fields: { parent: null, ...fields }, locales: { en: { title: 'B', slug: 'big' } } })
    return JSON.stringify(seed)
  }
  const cases = [
    // The document itself is one level, its fields a second: 99 more levels reach 101.
    [withDoc({ sku: deep(99) }), 'The document nests deeper than 100 levels.', {}],
    [withDoc({ sku: deep(98) }), null, {}],
    [withDoc({ sku: 1 }).replace('"sku":1', '"sku":1e400'), 'The document holds a number too large to store', {}],
    [withDoc({ sku: 'x'.repeat(3000) }), 'The document exceeds 2000 bytes of JSON (MAX_BODY_BYTES).', { MAX_BODY_BYTES: '2000' }],
  ] as const
  for (const [i, [content, message, env]] of cases.entries()) {
    writeFileSync(file, content)
    const databasePath = join(dir, `limits-${i}.db`)
    const proc = Bun.spawnSync(['bun', 'run', 'cli', 'seed', file], { cwd: root, env: { ...process.env, DATABASE_PATH: databasePath, ...env } })
    const res = { i, code: proc.exitCode, err: proc.stderr.toString() }
    if (message === null) expect(res).toMatchObject({ i, code: 0 })
    else {
      expect(res).toMatchObject({ i, code: 1, err: expect.stringContaining(`seed failed: Team acme, document "pages/big": ${message}`) })
      expect(existsSync(databasePath)).toBe(false)
    }
  }
})
