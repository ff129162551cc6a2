/**
 * Two api processes on one database (the SQLite file, or on the PostgreSQL pass one PostgreSQL
 * database), as a deployment with two replicas runs them: a write
 * that read what it changes before its write transaction could undo the other process's
 * acknowledged change (a webhook PATCH put back the other's old target, a secret rotation or its
 * events), or store a document under the collection its type had just left.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { spawnApi, TEAM, TOKENS } from '../helpers'
import { processDatabase, type ProcessDatabase } from '../process-db'
import { rows } from '../rows'

let store: ProcessDatabase
let apis: ReturnType<typeof spawnApi>[] = []
let bases: string[] = []

beforeAll(async () => {
  store = await processDatabase({ prefix: 'two-apis-' })
  apis = [spawnApi(store.env), spawnApi(store.env)]
  bases = (await Promise.all(apis.map((a) => a.listening()))).map(({ port }) => `http://127.0.0.1:${port}`)
})
afterAll(async () => {
  await Promise.all(apis.map((a) => a.stop()))
  await store.close()
})

async function call(base: string, method: string, url: string, body?: unknown, token = TOKENS.editor) {
  const res = await fetch(base + url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: res.status, body: await res.json() as any }
}

/** Publishes in a loop on both processes until `done`, so each write above waits for the lock now and then. */
async function publishing(done: () => boolean) {
  for (let i = 0; !done(); i++) {
    const id = `pages/noise${i % 5}`
    const base = bases[i % 2]!
    await call(base, 'POST', `/content/${TEAM}`, { id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: `n${i}`, slug: `noise${i % 5}` } } })
    await call(base, 'POST', `/content/publish/${TEAM}`, { ids: [id] })
  }
}

test('a webhook PATCHed by both processes at once keeps every acknowledged change (one changes the label, the other the target)', async () => {
  const created = await call(bases[0]!, 'POST', `/teams/${TEAM}/webhooks`, { label: 'race', provider: 'custom', target: 'https://hooks.example.com/t-0' }, TOKENS.webhooks)
  expect(created.status).toBe(201)
  const url = `/teams/${TEAM}/webhooks/${created.body.id}`
  const lost: string[] = []
  const rounds = 150
  let finished = 0
  const side = async (base: string, field: 'label' | 'target', value: (n: number) => string) => {
    for (let n = 1; n <= rounds; n++) {
      const res = await call(base, 'PATCH', url, { [field]: value(n) }, TOKENS.webhooks)
      expect(res.status).toBe(200)
      // Only this side changes this field: what it just had acknowledged must be what is stored.
      const now = (await call(base, 'GET', url, undefined, TOKENS.webhooks)).body[field]
      if (now !== value(n)) lost.push(`${field} ${value(n)} acknowledged, stored ${now}`)
    }
    finished++
  }
  await Promise.all([
    side(bases[0]!, 'label', (n) => `race-${n}`),
    side(bases[1]!, 'target', (n) => `https://hooks.example.com/t-${n}`),
    publishing(() => finished === 2),
  ])
  expect(lost).toEqual([])
}, 60_000)

test('a document written while another process moves its content type to a new collection is stored under the collection the type has when it commits', async () => {
  // In one statement, so one snapshot on either engine: documents of type page whose collection is not the type's.
  const contentType = store.db.engine === 'pg' ? "d.body->>'contentType'" : "json_extract(d.body, '$.contentType')"
  const pages = `SELECT d.id, d.collection FROM documents d JOIN content_types c ON c.team_id = d.team_id AND c.name = 'page'
    WHERE d.team_id = ? AND d.kind <> 'activity' AND ${contentType} = 'page'`
  const strays = () => rows(store.db, `${pages} AND d.collection <> c.collection`, TEAM)
  const seen: unknown[] = []
  let moving = true
  const writer = async (w: number) => {
    for (let i = 0; moving; i++) {
      const id = `pages/w${w}-${i % 10}/draft`
      const res = await call(bases[0]!, 'POST', `/content/${TEAM}`, { id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: `t${i}`, slug: `w${w}-${i % 10}` } } })
      expect(res.status).toBe(200)
    }
  }
  const mover = async () => {
    const type = (await call(bases[1]!, 'GET', `/teams/${TEAM}/content-types/page`)).body
    for (let n = 0; n < 300; n++) {
      const res = await call(bases[1]!, 'PUT', `/teams/${TEAM}/content-types/page`, { ...type, collection: n % 2 === 0 ? 'pages2' : 'pages' })
      expect(res.status).toBe(200)
      seen.push(...(await strays()))
    }
    moving = false
  }
  await Promise.all([writer(1), writer(2), writer(3), writer(4), mover()])
  seen.push(...(await strays()))
  expect(seen).toEqual([])
  // The query reads the documents it checks (a stray would show): the writers' drafts among them.
  expect((await rows(store.db, pages, TEAM)).length).toBeGreaterThan(10)
}, 60_000)
