import { expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { countRevisions } from '../../db/store'
import { putContentType, readLocales, readLocalization, setLocalization } from '../../core/teams/settings'
import { testSeed } from '../helpers'
import { runSeed, seedDir } from './seed-fixture'

const dir = seedDir()

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

test('a seed changes languages and templates as the settings routes do: fallbacks naming a removed locale go, documents move with a new collection, urls:false spelled out is no change, en and EN are one locale', async () => {
  const file = join(dir, 'settings-seed.json')
  const seed = testSeed() as any
  seed.teams[0].documents.push({ id: 'products/p1', contentType: 'product', fields: { sku: 'A1' }, locales: { en: { name: 'P' } } })
  writeFileSync(file, JSON.stringify(seed))
  const path = join(dir, 'settings-seed.db')
  expect(runSeed(file, path).code).toBe(0)
  const db = openDb(path)
  try {
    const cli = { teamId: 'acme', userId: 'cli' }
    await setLocalization(db, cli, { fallbacks: { de: 'fr', fr: 'en' } })
    await putContentType(db, cli, 'note', { collection: 'notes', fields: [] }) // stored without `urls`
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
    expect(await readLocalization(db, 'acme')).toEqual({ fallbacks: {} })
    expect(changes()).toEqual([...before, 'locales', 'template'])
    const moved = db.$client.query("SELECT collection FROM documents WHERE team_id = 'acme' AND id = 'products/p1'").get() as { collection: string }
    expect(moved.collection).toBe('goods')

    seed.teams[0].locales = ['en', 'EN']
    writeFileSync(file, JSON.stringify(seed))
    const refused = runSeed(file, path)
    expect(refused.code).not.toBe(0)
    expect(refused.err).toContain('Locales must be unique (ignoring case).')
    expect((await readLocales(db, 'acme')).locales).toEqual(['en', 'de'])
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

test('re-seeding a live page with a new slug and "published": true sends one event naming the old path; without it, one in-place event', async () => {
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
    expect(await countRevisions(db, 'acme', 'pages/about')).toBe(2)

    // Without "published": true the live page is rewritten in place (as a POST of the canonical
    // with ChangeLiveContent): its one event, no new Published Version.
    about.locales.en.slug = 'team'
    delete about.published
    writeFileSync(file, JSON.stringify(seed))
    expect(JSON.parse(runSeed(file, path).out)).toMatchObject({ ok: true, documents: 1, published: 0 })
    expect(events().slice(1)).toEqual([{ documentId: 'pages/about', userId: 'cli', urls: { en: '/team' }, previousUrls: ['/about-us'] }])
    expect(await countRevisions(db, 'acme', 'pages/about')).toBe(2)
  } finally {
    db.$client.close()
  }
})
