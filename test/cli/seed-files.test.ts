import { expect, test } from 'bun:test'
import { existsSync, writeFileSync } from 'node:fs'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { testSeed } from '../helpers'
import { root, runSeed, seedDir } from './seed-fixture'

const dir = seedDir()

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
    const { code, err } = runSeed(file, databasePath, env)
    const res = { i, code, err }
    if (message === null) expect(res).toMatchObject({ i, code: 0 })
    else {
      expect(res).toMatchObject({ i, code: 1, err: expect.stringContaining(`seed failed: Team acme, document "pages/big": ${message}`) })
      expect(existsSync(databasePath)).toBe(false)
    }
  }
})
