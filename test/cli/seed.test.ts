import { expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { countRevisions, listRevisions } from '../../db/store'
import { createApp } from '../../api/app'
import { loadConfig } from '../../core/config'
import { createLogger } from '../../core/log'
import { createMetrics } from '../../core/metrics'
import { testSeed, TOKENS } from '../helpers'
import { runSeed, seedDir } from './seed-fixture'

const dir = seedDir()

test('bun run cli seed is idempotent and publishes as user cli with one version per document', async () => {
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
    expect(await countRevisions(db, 'acme', 'pages/home')).toBe(1)
    expect(await countRevisions(db, 'acme', 'pages/draft-only')).toBe(0)
    const [rev] = await listRevisions(db, 'acme', 'pages/home', 0, 1)
    expect(rev!.body).toMatchObject({ __publishedBy: 'cli', __publishedAt: expect.stringMatching(/\.\d{7}Z$/) })
  } finally {
    db.$client.close()
  }

  // A changed published document is published again: one more version, still by cli.
  seed.teams[0]!.documents![0]!.locales = { en: { title: 'Home 2', slug: '' } }
  writeFileSync(file, JSON.stringify(seed))
  expect(JSON.parse(runSeed(file, path).out)).toMatchObject({ documents: 1, published: 1 })
  const again = openDb(path)
  expect(await countRevisions(again, 'acme', 'pages/home')).toBe(2)
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
    const [version] = await listRevisions(db, 'acme', 'pages/home', 0, 1)
    expect(version!.body).toMatchObject({ locales: fileLocales, __publishedBy: 'cli' })
    expect((await call('GET', '/content/acme?id=pages/home')).body.locales).toEqual(fileLocales)
    // The editor's draft is still theirs, still dirty.
    const kept = (await call('GET', '/content/acme?id=pages/home/draft')).body
    expect(kept).toMatchObject({ locales: { en: { title: 'UNREVIEWED EDIT' } }, __dirtyLocales: ['en'] })

    expect(JSON.parse(runSeed(file, path).out)).toMatchObject({ ok: true, documents: 0, published: 0 })
    expect(await countRevisions(db, 'acme', 'pages/home')).toBe(2)
  } finally {
    db.$client.close()
  }
})
