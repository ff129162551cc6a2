/**
 * `\u0000` in a document body, through real api processes on SQLite and on PostgreSQL: a page
 * whose localized title and a field hold a NUL (and one holding the text `\u0000`, escaped) saves,
 * publishes, has a child page published under it, and reads back, listed and as a version, the
 * same on both. PostgreSQL's json operators cannot read such a body; db/ reads it through
 * nul_safe_json (db/migrations/pg/0002_nul_safe_json.sql).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { describePg } from '../pg/harness'
import { TEAM } from '../helpers'
import { content, startRaceApis, type Call, type RaceApis } from './pg-races-fixture'

const TITLE = 'Null\u0000Title'
const nulPage = (id: string, parent: string, title: string) =>
  ({ id, contentType: 'page', fields: { parent, sku: 'a\u0000b', note: 'not a NUL: \\u0000' }, locales: { en: { title, slug: id.split('/').at(-1)! }, de: { title: `${title} de`, slug: `${id.split('/').at(-1)}-de` } } })

describePg('a NUL in a document body, on SQLite and on PostgreSQL', () => {
  let apis: RaceApis
  beforeAll(async () => { apis = await startRaceApis() }, 60_000)
  afterAll(async () => { await apis?.stop() })

  async function sequence(call: Call) {
    const statuses: number[] = []
    const step = async (...args: Parameters<Call>) => {
      const a = await call(...args)
      statuses.push(a.status)
      return a
    }
    await step('POST', content, nulPage('pages/nul', 'pages/home', TITLE))
    await step('POST', `/content/publish/${TEAM}`, { ids: ['pages/nul'] })
    await step('POST', content, nulPage('pages/nul/child', 'pages/nul', 'Child\u0000'))
    await step('POST', `/content/publish/${TEAM}`, { ids: ['pages/nul/child'] })
    await step('POST', content, nulPage('pages/nul/draft', 'pages/home', `${TITLE} v2`))
    const doc = (await step('GET', `${content}?id=pages/nul`)).body
    const child = (await step('GET', `${content}?id=pages/nul/child`)).body
    const draft = (await step('GET', `${content}?id=${encodeURIComponent('pages/nul/draft')}`)).body
    const list = (await step('GET', `/content/list/${TEAM}?collection=pages`)).body
    const versions = (await step('GET', `/content/versions/${TEAM}?id=pages/nul`)).body
    const version = (await step('GET', `/content/version/${TEAM}?id=pages/nul&version=${encodeURIComponent(versions.rows[0].version)}`)).body
    const strip = (d: any) => ({ fields: d.fields, locales: d.locales })
    return {
      statuses, doc: strip(doc), child: strip(child), draft: strip(draft), version: strip(version),
      listed: list.rows.filter((r: any) => r.id.startsWith('pages/nul')).map((r: any) => ({ id: r.id, title: r.title, published: r.published })),
    }
  }

  test('saves, publishes and reads back byte-identical on both', async () => {
    const onSqlite = await sequence(apis.on.sqlite)
    const onPg = await sequence(apis.on.pg)
    // SQLite keeps the NUL: this is what PostgreSQL must answer too.
    expect(onSqlite.statuses).toEqual(Array(11).fill(200))
    expect(onSqlite.doc.locales.en.title).toBe(TITLE)
    expect(onSqlite.version.locales.en.title).toBe(TITLE)
    expect(onSqlite.doc.fields).toEqual({ parent: 'pages/home', sku: 'a\u0000b', note: 'not a NUL: \\u0000' })
    // The list shows the draft's title (json_extract on SQLite, `#>` through nul_safe_json here).
    expect(onSqlite.listed.map((r: any) => r.title)).toEqual([`${TITLE} v2`, 'Child\u0000'])
    expect(onPg).toEqual(onSqlite)
  }, 60_000)
})
