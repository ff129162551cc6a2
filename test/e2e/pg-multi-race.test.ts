/**
 * Races on PostgreSQL through real processes: 2 api processes (api/main.ts) and 3 dispatchers
 * (dispatcher/main.ts) on one fresh database.
 *
 * 200 concurrent publishes and restores split across the two apis, the dispatchers delivering
 * meanwhile: no 500; one Published Version per successful publish, ordinals dense; one outbox
 * row per subscribed webhook per event, each delivered; every restore lands whole or answers 409.
 * "Whole" is checked against a model replayed in commit order (change vectors are handed out
 * under one lock, so their numbers are the commit order): a landed restore's asked locales are
 * its source's, its other locales are the draft's just before it (or the live canonical's when
 * there was none); a publish publishes the draft just before it (or the canonical as it is).
 *
 * Then several dispatchers racing: schedules due at one moment are each published once, and a
 * burst of site changes yields one site.changed.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { pgClientOptions } from '../../db/pg/client'
import { enc, TEAM, TOKENS, waitFor } from '../helpers'
import { describePg, type PgTestDatabase } from '../pg/harness'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { call, errorLines, killAll, seededPg, startApis, startDispatchers, type Answer, type Dispatcher } from './pg-multi-fixture'

const ID = 'pages/about'
const HOOKS = 2
const REQUESTS = 200
const LISTS: (string[] | null)[] = [null, ['de'], ['en', 'fr'], ['fr']]
const page = (id: string, tag: string) => ({
  id, contentType: 'page', fields: { parent: 'pages/home' },
  locales: { en: { title: `${tag} en`, slug: 'about' }, de: { title: `${tag} de`, slug: 'ueber' }, fr: { title: `${tag} fr`, slug: 'apropos' } },
})
/** The counter of a change vector `A:<n>-<node>`. */
const cvNumber = (cv: string) => Number(/^A:(\d+)-/.exec(cv)![1])

describePg('races through 2 apis and 3 dispatchers on PostgreSQL', () => {
  let pg: PgTestDatabase
  let sql: SQL
  let rx: TestReceiver
  let apis: Awaited<ReturnType<typeof startApis>>['apis'] = []
  let bases: string[] = []
  let dispatchers: Dispatcher[] = []
  const api = (i: number) => bases[i % 2]!
  beforeAll(async () => {
    pg = await seededPg()
    sql = new SQL(pgClientOptions(pg.url, { processName: 'test', poolSize: 2 }))
    rx = startReceiver()
    ;({ apis, bases } = await startApis(pg.url, 2))
    dispatchers = await startDispatchers(pg.url, 3, { DISPATCHER_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '5000', DISPATCHER_LEASE_MS: '60000' })
    for (let w = 0; w < HOOKS; w++) {
      const events = ['content.published', 'site.changed']
      expect((await call(api(w), 'POST', `/teams/${TEAM}/webhooks`, { label: `w${w}`, provider: 'custom', target: `${rx.url}?w=${w}`, events }, { token: TOKENS.webhooks })).status).toBe(201)
    }
  }, 60_000)
  afterAll(async () => {
    await killAll(dispatchers)
    await Promise.all(apis.map((a) => a.stop()))
    rx?.stop()
    await sql?.close()
    await pg?.drop()
  })

  const outboxIsDelivered = async () => {
    const rows = [...await sql`SELECT event_id, count(*)::int AS n, bool_and(status = 'delivered') AS done FROM outbox GROUP BY event_id`]
    return rows.every((r) => r.done) ? rows : null
  }

  test('200 concurrent publishes and restores: no 500, one version per publish, one row per webhook per event, no mixed restore', async () => {
    for (const tag of ['v1', 'v2']) {
      expect((await call(api(0), 'POST', `/content/${TEAM}`, page(ID, tag))).status).toBe(200)
      expect((await call(api(1), 'POST', `/content/publish/${TEAM}`, { ids: [ID] })).body[0].status).toBe(0)
    }
    const products = Array.from({ length: 5 }, (_, i) => `products/r${i}`)
    for (const id of products) expect((await call(api(0), 'POST', `/content/${TEAM}`, { id, contentType: 'product', fields: { sku: id }, locales: { en: { name: id } } })).status).toBe(200)
    const sources = (await call(api(0), 'GET', `/content/versions/${TEAM}?id=${ID}`)).body.rows.map((r: any) => r.version) as string[]
    const bodyOf = async (version: string) => (await call(api(0), 'GET', `/content/version/${TEAM}?id=${ID}&version=${enc(version)}`)).body
    const sourceLocales = new Map(await Promise.all(sources.map(async (v) => [v, (await bodyOf(v)).locales] as const)))
    const draft = await call(api(1), 'POST', `/content/${TEAM}`, page(`${ID}/draft`, 'd0'))
    expect(draft.status).toBe(200)
    // Two publishes, and the second version saved over the live canonical (a change in place): three events.
    const eventsBefore = (await sql`SELECT count(DISTINCT event_id)::int AS n FROM outbox`)[0].n
    expect(eventsBefore).toBe(3)

    // The race: 200 requests alternating apis, started 5 ms apart (each takes longer than that, so
    // dozens are in flight at once; fired all in the same instant, the first restore to write made
    // every other one's read stale, and nearly all answered 409).
    type Sent = { kind: 'restore'; version: string; locales: string[] | null; ifMatch: boolean } | { kind: 'publish'; ids: string[] }
    const plan: Sent[] = Array.from({ length: REQUESTS }, (_, i) => i % 2 === 0
      ? { kind: 'restore', version: sources[(i >> 1) % 2]!, locales: LISTS[(i >> 2) % LISTS.length]!, ifMatch: i % 4 === 0 }
      : { kind: 'publish', ids: i % 9 === 0 ? [ID] : [products[i % products.length]!] })
    const answers: (Answer & { sent: Sent })[] = await Promise.all(plan.map(async (sent, i) => {
      await Bun.sleep(i * 5)
      if (sent.kind === 'publish') return { sent, ...await call(api(i), 'POST', `/content/publish/${TEAM}`, { ids: sent.ids }) }
      let headers: Record<string, string> = {}
      if (sent.ifMatch) {
        const read = await call(api(i + 1), 'GET', `/content/${TEAM}?id=${enc(`${ID}/draft`)}`)
        if (read.status === 200) headers = { 'if-match': `"${read.body['@metadata']['@change-vector']}"` }
      }
      return { sent, ...await call(api(i), 'POST', `/content/apply-version/${TEAM}`, { kind: 'revision', documentId: ID, version: sent.version, locales: sent.locales }, { headers }) }
    }))

    const statuses = Map.groupBy(answers, (a) => `${a.sent.kind} ${a.status}${a.status === 409 ? (a.body[0].reason.includes('If-Match') ? ' (If-Match)' : ' (changed while restoring)') : ''}`)
    console.log(`200 concurrent requests over 2 apis: ${[...statuses].map(([k, v]) => `${k}: ${v.length}`).join(', ')}`)
    // No 500 (nor anything but 200, and 409 for a restore); a 500 comes with the api's error lines, which say why.
    const unexpected = answers.filter((a) => a.status !== 200 && !(a.sent.kind === 'restore' && a.status === 409)).map((a) => [a.sent, a.status, a.body])
    expect({ unexpected, apiErrors: apis.flatMap((a) => errorLines(a.stdout.text + a.stderr.text)) }).toEqual({ unexpected: [], apiErrors: [] })
    const published = answers.filter((a) => a.sent.kind === 'publish')
    expect(published.flatMap((a) => a.body).filter((item: any) => item.status !== 0)).toEqual([])
    const restores = answers.filter((a) => a.sent.kind === 'restore')
    for (const r of restores.filter((a) => a.status === 409)) expect(r.body).toEqual([{ id: ID, status: 1, reason: expect.any(String) }])
    const landed = restores.filter((a) => a.status === 200)
    expect(landed.length).toBeGreaterThan(0)
    expect(restores.length - landed.length).toBeGreaterThan(0) // the race happened

    // One Published Version per successful publish, ordinals dense, per document.
    const publishesOf = (id: string) => published.filter((a) => (a.sent as { ids: string[] }).ids[0] === id).length
    const revisions = [...await sql`SELECT document_id, count(*)::int AS n, min(ordinal)::int AS lo, max(ordinal)::int AS hi FROM revisions WHERE team_id = ${TEAM} AND document_id <> 'pages/home' GROUP BY 1 ORDER BY 1`]
    expect(revisions).toEqual([ID, ...products].sort().map((id) => {
      const n = publishesOf(id) + (id === ID ? 2 : 0)
      return { document_id: id, n, lo: 1, hi: n }
    }))
    const versions = (await call(api(0), 'GET', `/content/versions/${TEAM}?id=${ID}&pageSize=100`)).body.rows
    expect(versions).toHaveLength(publishesOf(ID) + 2)

    // No mixed restore: replay every landed write to the draft in commit order.
    const revisionCvs = [...await sql`SELECT ordinal::int AS ordinal, change_vector FROM revisions WHERE team_id = ${TEAM} AND document_id = ${ID} AND ordinal > 2 ORDER BY ordinal`]
    const publishBodies = await Promise.all(versions.slice(0, -2).reverse().map((v: any) => bodyOf(v.version)))
    type Write = { at: number; restore?: (typeof landed)[number]; published?: any }
    const writes: Write[] = [
      ...landed.map((r) => ({ at: cvNumber(r.body[0].document['@metadata']['@change-vector']), restore: r })),
      ...revisionCvs.map((r, i) => ({ at: cvNumber(r.change_vector), published: publishBodies[i] })),
    ].sort((a, b) => a.at - b.at)
    let live = sourceLocales.get(sources[0]!) // v2, the newest
    let current: any = page(`${ID}/draft`, 'd0').locales
    const wrong: unknown[] = []
    for (const w of writes) {
      if (w.published) {
        if (!Bun.deepEquals(w.published.locales, current ?? live)) wrong.push({ at: w.at, published: w.published.locales, expected: current ?? live })
        live = w.published.locales
        current = null // the draft equals what went live: the publish removes it
        continue
      }
      const sent = w.restore!.sent as Extract<Sent, { kind: 'restore' }>
      const got = w.restore!.body[0].document.locales
      const before = current ?? live
      const want = Object.fromEntries(['en', 'de', 'fr'].map((l) => [l, sent.locales === null || sent.locales.includes(l) ? sourceLocales.get(sent.version)[l] : before[l]]))
      if (!Bun.deepEquals(got, want)) wrong.push({ at: w.at, restore: sent, got, want })
      current = got
    }
    expect(wrong).toEqual([])
    const stored = await call(api(0), 'GET', `/content/${TEAM}?id=${enc(`${ID}/draft`)}`)
    expect(current === null ? stored.status : stored.body.locales).toEqual(current === null ? 404 : current)

    // One outbox row per webhook per event, one event per successful publish; every row delivered, and received.
    const events = await waitFor(outboxIsDelivered, 30_000, 'every outbox row delivered')
    expect(events.length).toBe(published.length + eventsBefore)
    expect(events.filter((e) => e.n !== HOOKS)).toEqual([])
    const received = new Set(rx.requests.map((r) => `${r.headers['x-service-delivery']} ${r.path}`))
    expect(received.size).toBe(events.length * HOOKS)

    for (const p of [...apis.map((a) => a.stdout.text + a.stderr.text), ...dispatchers.map((d) => d.out.text + d.err.text)]) expect(errorLines(p)).toEqual([])
  }, 90_000)

  const logged = (msg: string) => dispatchers.map((d) => d.out.text.split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l)))
  const payloads = (type: string) => rx.requests.map((r) => ({ ...JSON.parse(r.body), path: r.path })).filter((p) => p.eventType === type)

  test('three dispatchers racing: schedules due at one moment are each published once; a burst of site changes yields one site.changed', async () => {
    const SCHEDULES = 10
    const ids = Array.from({ length: SCHEDULES }, (_, i) => `pages/s${i}`)
    for (const [i, id] of ids.entries()) {
      expect((await call(api(i), 'POST', `/content/${TEAM}`, { ...page(`${id}/draft`, id), fields: { parent: 'pages/home' } })).status).toBe(200)
    }
    const publishAt = new Date(Date.now() + 1500).toISOString()
    for (const [i, id] of ids.entries()) expect((await call(api(i), 'POST', `/content/schedule/${TEAM}`, { id, publishAt })).status).toBe(201)
    const publishedOf = () => payloads('content.published').filter((p) => ids.includes(p.documentId))
    await waitFor(() => publishedOf().length >= SCHEDULES * HOOKS, 20_000, 'every scheduled publish delivered')
    await Bun.sleep(1000) // a second publish of one would have come by now (the dispatchers poll every 50 ms)
    expect(publishedOf().map((p) => `${p.documentId} ${p.path}`).sort()).toEqual(ids.flatMap((id) => [0, 1].map((w) => `${id} /hook?w=${w}`)).sort())
    expect(publishedOf().every((p) => p.userId === null && Date.parse(p.occurredAt) >= Date.parse(publishAt))).toBe(true)
    expect([...await sql`SELECT document_id, count(*)::int AS n FROM revisions WHERE document_id LIKE 'pages/s%' GROUP BY 1 ORDER BY 1`])
      .toEqual(ids.toSorted().map((id) => ({ document_id: id, n: 1 })))
    expect((await sql`SELECT count(*)::int AS n FROM schedules`)[0].n).toBe(0)
    const byDispatcher = logged('scheduled publish').map((lines) => lines.filter((l) => ids.includes(l.documentId)))
    expect(byDispatcher.flat().map((l) => [l.documentId, l.status]).sort()).toEqual(ids.map((id) => [id, 0]).sort())

    // A burst of four site changes over both apis (one of them the content index, which the index job must catch up first).
    for (const [i, [path, body]] of ([
      ['/locales', { locales: ['en', 'de'], defaultLocale: 'en' }],
      ['/localization', { fallbacks: { de: 'en' } }],
      ['/content-index', { fields: ['title'] }],
      ['/locales', { locales: ['en', 'de', 'fr'], defaultLocale: 'en' }],
    ] as const).entries()) expect((await call(api(i), 'PUT', `/teams/${TEAM}${path}`, body)).status).toBe(200)
    await waitFor(() => payloads('site.changed').length >= HOOKS, 15_000, 'site.changed')
    await Bun.sleep(1000)
    const site = payloads('site.changed')
    expect(site.map(({ eventType, status, scope, userId, path }) => ({ eventType, status, scope, userId, path })).sort((a, b) => a.path.localeCompare(b.path))).toEqual(
      [0, 1].map((w) => ({ eventType: 'site.changed', status: 'locales', scope: 'site', userId: 'u-editor', path: `/hook?w=${w}` })))
    expect(new Set(site.map((p) => p.eventId)).size).toBe(1)
    expect((await sql`SELECT count(*)::int AS n FROM outbox WHERE event_type = 'site.changed'`)[0].n).toBe(HOOKS)
    expect(logged('site.changed emitted').flat()).toHaveLength(1)
    console.log(`schedules published by dispatcher: ${byDispatcher.map((l) => l.length).join(', ')}; site.changed emitted by dispatcher: ${logged('site.changed emitted').map((l) => l.length).join(', ')}`)
    for (const d of dispatchers) expect(errorLines(d.out.text + d.err.text)).toEqual([])
  }, 60_000)
})
