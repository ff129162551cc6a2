/**
 * What a page publish with a subscribed webhook costs as the team's page tree grows: the event's
 * `urls`/`previousUrls` walk the tree (core/events/record.ts), inside the publish's write
 * transaction, so every other writer waits for it. Measured on a small team (the baseline, same
 * run) and on a large one; the goal is a ratio near 1 (the cost follows the pages an event
 * touches, not the team's size). Also: an in-place rename of a page with a subtree below it.
 *   bun bench/page-tree.ts [largePages=8000] [smallPages=100] [publishes=40]
 */
import { openDb, type SqliteDb as Db } from '../db/client'
import { seed } from '../cli/seed'
import { publishOne } from '../core/publish/service'
import { writeDocument } from '../core/content/service'
import { createWebhook } from '../core/webhooks/service'
import { fmt, summarize, tempDbPath } from './util'

const LARGE = Number(process.argv[2] ?? 8000)
const SMALL = Number(process.argv[3] ?? 100)
const PUBLISHES = Number(process.argv[4] ?? 40)
const ROOTS = 100 // pages directly below home; the rest hang below them

/** A team with `pages` published pages (ROOTS below home, the others below those) and one webhook. */
async function prepare(pages: number): Promise<Db> {
  const db = openDb(tempDbPath(`tree-${pages}`))
  await seed(db, null, {
    teams: [{
      id: 't', workspaceId: 'w', locales: ['en', 'de'], defaultLocale: 'en',
      contentTypes: [{ name: 'page', collection: 'pages', urls: true, fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }] }],
      users: [{ id: 'u', token: 'bench-token', capabilities: ['EditContent', 'ChangeLiveContent', 'ManageWebhooks'] }],
      documents: [{ id: 'pages/home', contentType: 'page', published: true, fields: { parent: null }, locales: { en: { title: 'Home', slug: '' } } }],
    }],
  })
  // Stored directly: building the tree through publishes is not what is measured.
  const insert = db.$client.query(
    `INSERT INTO documents (team_id, id, canonical_id, kind, collection, body, change_vector, published, archived, deleted_at, updated_at)
     VALUES ('t', ?1, ?1, 'canonical', 'pages', ?2, 'bench', 1, 0, NULL, ?3)`,
  )
  const now = new Date().toISOString()
  db.$client.transaction(() => {
    for (let i = 0; i < pages; i++) {
      const parent = i < ROOTS ? 'pages/home' : `pages/p${i % ROOTS}`
      insert.run(`pages/p${i}`, JSON.stringify({ id: `pages/p${i}`, contentType: 'page', fields: { parent }, locales: { en: { title: 'P', slug: `p${i}` }, de: { title: 'P', slug: `p${i}` } } }), now)
    }
  })()
  await createWebhook(db, 't', { label: 'bench', provider: 'custom', target: 'https://example.com/hook', events: ['content.published'] } as Parameters<typeof createWebhook>[2], false)
  return db
}

async function measure(pages: number) {
  const db = await prepare(pages)
  const samples: number[] = []
  for (let i = 0; i < PUBLISHES; i++) {
    await writeDocument(db, { teamId: 't', userId: 'u', doc: { id: `pages/new${i}/draft`, contentType: 'page', fields: { parent: 'pages/p5' }, locales: { en: { title: 'N', slug: `n${i}` } } } })
    const t0 = performance.now()
    const item = await publishOne(db, { teamId: 't', id: `pages/new${i}`, stampUserId: 'u', actorUserId: 'u', source: 'api' })
    samples.push(performance.now() - t0)
    if (item.status !== 0) throw new Error(`publish refused: ${JSON.stringify(item)}`)
  }
  // A page with a subtree (its children and the new pages) gets a new slug in place.
  const t0 = performance.now()
  await writeDocument(db, { teamId: 't', userId: 'u', mayChangeLive: true, doc: { id: 'pages/p5', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'P', slug: 'renamed' }, de: { title: 'P', slug: 'p5' } } } })
  const renameMs = performance.now() - t0
  const event = JSON.parse((db.$client.query('SELECT payload FROM outbox_events ORDER BY rowid DESC LIMIT 1').get() as { payload: string }).payload)
  db.$client.close()
  return { ...summarize(samples), renameMs, previousUrls: event.previousUrls.length as number, scope: event.scope as string }
}

const small = await measure(SMALL)
const large = await measure(LARGE)
for (const [name, r] of [[`${SMALL} pages (baseline)`, small], [`${LARGE} pages`, large]] as const) {
  console.log(`${name.padEnd(20)} page publish p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms; in-place rename of a page with a subtree ${fmt(r.renameMs)} ms (${r.previousUrls} previousUrls, scope ${r.scope})`)
}
console.log(`ratio large / small publish p50: ${fmt(large.p50 / small.p50)}  (goal: near 1; the event reads the pages it touches, not the tree)`)
