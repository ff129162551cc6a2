import { expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { createApp } from '../../api/app'
import { loadConfig } from '../../core/config'
import { createLogger } from '../../core/log'
import { createMetrics } from '../../core/metrics'
import { testSeed, TOKENS } from '../helpers'
import { runSeed, seedDir } from './seed-fixture'

const dir = seedDir()

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
