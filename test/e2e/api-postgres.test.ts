/**
 * The api as a real process on PostgreSQL (DATABASE_URL), beside one on a SQLite file, both
 * seeded alike (the seed is written to SQLite and copied over with `cli copy-to-postgres`, a real
 * process too): the same requests over HTTP get the same answers, ids, times and change vectors
 * aside (each is replaced by its first-seen order). Publish leaves its event in PostgreSQL's outbox.
 * PATCH too, on a draft and on a draft created from its canonical.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { Database } from 'bun:sqlite'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { seed } from '../../cli/seed'
import { makeTestDir, spawnApi, testSeed, TEAM, TOKENS, enc } from '../helpers'
import { describePg, pgDatabase, type PgTestDatabase } from '../pg/harness'

const root = join(import.meta.dir, '../..')
const dir = makeTestDir('api-pg-')
const seeded = join(dir, 'seeded.db')
const never = join(dir, 'never', 'content.db')

describePg('the api on PostgreSQL answers as on SQLite', () => {
  let pg: PgTestDatabase
  let apis: ReturnType<typeof spawnApi>[] = []
  let bases: { sqlite: string; pg: string }
  beforeAll(async () => {
    for (const path of [seeded, join(dir, 'content.db')]) {
      const db = openDb(path)
      await seed(db, null, testSeed())
      db.$client.close()
    }
    pg = await pgDatabase()
    const copy = Bun.spawnSync(['bun', 'cli/main.ts', 'copy-to-postgres', '--from', seeded, '--to', pg.url], { cwd: root, env: process.env })
    if (copy.exitCode !== 0) throw new Error(`copy-to-postgres: ${copy.stderr.toString()}`)
    const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }
    apis = [spawnApi({ ...env, DATABASE_PATH: join(dir, 'content.db') }), spawnApi({ ...env, DATABASE_PATH: never, DATABASE_URL: pg.url })]
    const [a, b] = await Promise.all(apis.map((x) => x.listening()))
    bases = { sqlite: `http://127.0.0.1:${a!.port}`, pg: `http://127.0.0.1:${b!.port}` }
  }, 60_000)

  afterAll(async () => {
    await Promise.all(apis.map((a) => a.stop()))
    await pg?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  /** The whole sequence on `base`: every answer as [status, body], with what differs by nature aliased. */
  async function sequence(base: string) {
    const answers: unknown[] = []
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}, token = TOKENS.editor) => {
      const res = await fetch(base + url, {
        method, body: body === undefined ? undefined : JSON.stringify(body),
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      })
      const text = await res.text()
      let parsed: any = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      answers.push([method, url.replace(/version=[^&]+/, 'version=…').replace(/[0-9a-f-]{36}|snapshot%2F[\w-]+/g, '…'), res.status, parsed])
      return { status: res.status, body: parsed, etag: res.headers.get('etag') }
    }
    answers.push(['health', (await fetch(base + '/health')).status, await (await fetch(base + '/health')).json()])
    const hook = await call('POST', `/teams/${TEAM}/webhooks`, { label: 'site', provider: 'custom', target: 'http://127.0.0.1:9/hook' }, {}, TOKENS.webhooks)
    await call('GET', `/teams/${TEAM}/webhooks`, undefined, {}, TOKENS.webhooks)
    const doc = { id: 'pages/about', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'About v1', slug: 'about' }, de: { title: 'Über v1', slug: 'ueber' } } }
    await call('POST', `/content/${TEAM}`, doc)
    await call('POST', `/content/publish/${TEAM}`, { ids: ['pages/about'] })
    await call('POST', `/content/${TEAM}`, { ...doc, locales: { ...doc.locales, en: { title: 'About v2', slug: 'about' } } })
    await call('POST', `/content/publish/${TEAM}`, { ids: ['pages/about'] })
    const versions = await call('GET', `/content/versions/${TEAM}?id=pages/about`)
    const v1 = versions.body.rows.at(-1).version as string
    await call('POST', `/content/${TEAM}`, { ...doc, id: 'pages/about/draft', locales: { ...doc.locales, en: { title: 'About draft', slug: 'about' } } })
    const draft = await call('GET', `/content/${TEAM}?id=${enc('pages/about/draft')}`)
    const seen = draft.body['@metadata']['@change-vector'] as string
    await call('POST', `/content/${TEAM}`, { ...doc, id: 'pages/about/draft', locales: { ...doc.locales, en: { title: 'About draft 2', slug: 'about' } } })
    await call('POST', `/content/apply-version/${TEAM}`, { kind: 'revision', documentId: 'pages/about', version: v1, locales: ['en'] }, { 'if-match': `"${seen}"` })
    const fresh = await call('GET', `/content/${TEAM}?id=${enc('pages/about/draft')}`)
    await call('POST', `/content/apply-version/${TEAM}`, { kind: 'revision', documentId: 'pages/about', version: v1, locales: ['en'] }, { 'if-match': `"${fresh.body['@metadata']['@change-vector']}"` })
    await call('GET', `/content/${TEAM}?id=${enc('pages/about/draft')}`)
    const snap = await call('POST', `/content/snapshots/${TEAM}`, { documentId: 'pages/about', name: 'before launch' })
    await call('GET', `/content/history/${TEAM}?id=pages/about`)
    await call('PATCH', `/content/snapshots/${TEAM}?id=${enc(snap.body.id)}`, { name: 'launch' })
    await call('POST', `/content/apply-snapshot/${TEAM}`, { snapshotId: snap.body.id })
    await call('GET', `/content/${TEAM}?id=${enc('pages/about/activity')}`)
    await call('PATCH', `/content/${TEAM}?id=${enc('pages/about/draft')}`, [{ op: 'replace', path: '/locales/de/title', value: 'Über, gepatcht' }])
    await call('PATCH', `/content/${TEAM}?id=${enc('pages/home/draft')}`, [{ op: 'replace', path: '/locales/en/title', value: 'Home draft' }])
    await call('PATCH', `/content/${TEAM}?id=${enc('pages/about/draft')}`, [{ op: 'test', path: '/locales/de/title', value: 'not it' }])
    await call('GET', `/content/versions/${TEAM}?id=pages/nothing`)
    await call('GET', `/content/${TEAM}?id=pages/nothing`)
    await call('PATCH', `/content/snapshots/${TEAM}?id=no-such-snapshot`, { name: 'x' })
    await call('GET', `/teams/${TEAM}/webhooks/no-such-hook`, undefined, {}, TOKENS.webhooks)
    await call('GET', `/teams/${TEAM}/webhooks/${hook.body.id}/deliveries`, undefined, {}, TOKENS.webhooks)
    return alias(answers)
  }

  test('the same requests get the same answers; publish leaves its outbox rows in PostgreSQL', async () => {
    const onSqlite = await sequence(bases.sqlite)
    const onPg = await sequence(bases.pg)
    expect(onPg).toEqual(onSqlite)
    // And they are the answers the sequence is about (both could be wrong alike).
    expect((onPg as unknown[][]).map((a) => a[2])).toEqual([
      { status: 'ok' }, 201, 200, 200, 200, 200, 200, 200, 200, 200, 200, 409, 200, 200, 200, 201, 200, 200, 200, 200, 200, 200, 400, 404, 404, 400, 404, 200,
    ])
    const counts = { outbox: 'SELECT count(*) AS n FROM outbox', revisions: "SELECT count(*) AS n FROM revisions WHERE document_id = 'pages/about'" }
    const lite = new Database(join(dir, 'content.db'), { readonly: true })
    const sql = new SQL({ url: pg.url, max: 1 })
    try {
      const read = async (q: string) => ({ pg: Number((await sql.unsafe(q))[0].n), sqlite: (lite.query(q).get() as { n: number }).n })
      const found = { outbox: await read(counts.outbox), revisions: await read(counts.revisions) }
      expect(found).toEqual({ outbox: { pg: 3, sqlite: 3 }, revisions: { pg: 2, sqlite: 2 } })
    } finally {
      lite.close()
      await sql.close()
    }
    expect(existsSync(never)).toBe(false)
  }, 60_000)
})

/** Ids, change vectors, version references and secrets replaced by the order they were first seen in; times by `<time>`. */
function alias(value: unknown): unknown {
  const seen = new Map<string, string>()
  const name = (s: string) => {
    if (!seen.has(s)) seen.set(s, `#${seen.size}`)
    return seen.get(s)!
  }
  const time = /^\d{4}-\d\d-\d\dT[\d:.]+Z$/
  const opaque = /^(A:\d+-\w+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|whsec_.*|[A-Za-z0-9_-]{20,})$/
  const walk = (v: unknown, key = ''): unknown => {
    if (key === 'secretLast4') return '…'
    if (typeof v === 'string' && time.test(v)) return '<time>'
    if (typeof v === 'string') return opaque.test(v) || /^(id|version|secret|etag|@change-vector|changeVector)$/.test(key) ? name(v) : v.replace(/A:\d+-\w+|snapshot\/[\w-]{22}$/g, (m) => name(m))
    if (Array.isArray(v)) return v.map((x) => walk(x, key))
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]))
    return v
  }
  return walk(value)
}
