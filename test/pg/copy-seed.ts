/**
 * A SQLite database with something in every table, written through the real api and dispatcher
 * (never straight into the tables): documents in several locales, many published versions (so
 * revision bodies are keyframes and deltas), restores, snapshots, schedules (one run, one
 * waiting), webhooks of both signature schemes with outbox rows delivered, failed-and-waiting and
 * never tried, their attempts, site changes emitted and waiting, metric counters.
 * The copy test (test/pg/copy-to-postgres.test.ts) copies it and compares every row.
 */
import { sqliteOf } from '../dialect'
import { expect } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'
import { startReceiver } from '../test-receiver'
import { createDispatcher } from '../../dispatcher/loop'
import { createLogger } from '../../core/log'
import { decodeStored } from '../../db/revision-body'

const HOUR = 3_600_000

async function ok(res: Promise<{ status: number; body: any }>, status = 200) {
  const r = await res
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`)
  return r.body
}

const page = (id: string, n: number) => ({
  id, contentType: 'page', fields: { parent: 'pages/home', sku: `S-${n}` },
  locales: { en: { title: `Title ${n}`, slug: `p-${n}` }, de: { title: `Titel ${n} – ü`, slug: `p-${n}` }, fr: { title: `Titre ${n} – é`, slug: `p-${n}` } },
})

/**
 * Builds the database in a new temp folder; answers its path and the folder (the caller removes
 * it). The database is closed (its WAL copied back) when this returns.
 */
export async function seedEveryTable(): Promise<{ path: string; dir: string }> {
  const ctx = await createTestContext()
  const good = startReceiver([{ status: 200, body: 'thanks' }])
  const down = startReceiver([{ status: 503, body: 'down for maintenance' }])
  try {
    await writeEverything(ctx, good.url, down.url)
    return { path: ctx.path, dir: ctx.dir }
  } finally {
    good.stop()
    down.stop()
    sqliteOf(ctx.db).$client.close(true) // every statement finalized: the WAL is copied back now, not when they are collected
  }
}

async function writeEverything(ctx: TestContext, goodUrl: string, downUrl: string) {
  const call = ctx.call.bind(ctx)
  const hooks = `/teams/${TEAM}/webhooks`
  const events = ['content.published', 'content.unpublished', 'site.changed']
  await ok(call('POST', hooks, { token: TOKENS.webhooks, body: { label: 'site', provider: 'custom', target: goodUrl, events } }), 201)
  await ok(call('POST', hooks, { token: TOKENS.webhooks, body: { label: 'standard', provider: 'custom', target: downUrl, events, signatureScheme: 'standard-webhooks' } }), 201)
  const otherHook = await ok(call('POST', '/teams/other/webhooks', { token: TOKENS.outsider, body: { label: 'other', provider: 'custom', target: goodUrl, events: ['content.published'] } }), 201)

  const publish = async (ids: string[], team = TEAM, token?: string) => {
    for (const item of await ok(call('POST', `/content/publish/${team}`, { body: { ids }, token }))) expect(item.status).toBe(0)
  }
  // Several pages in three locales, and one document published 20 times: revisions past a
  // keyframe run (db/revision-body.ts KEYFRAME_EVERY = 16), so bodies are keyframes and deltas.
  for (let n = 1; n <= 3; n++) await ok(call('POST', `/content/${TEAM}`, { body: page(`pages/p${n}`, n) }))
  await publish(['pages/p1', 'pages/p2', 'pages/p3'])
  for (let n = 1; n <= 20; n++) {
    await ok(call('POST', `/content/${TEAM}`, { body: page('pages/about', n) }))
    await publish(['pages/about'])
  }
  await ok(call('POST', `/content/${TEAM}`, { body: { id: 'products/lamp', contentType: 'product', fields: { sku: 'L-1' }, locales: { en: { name: 'Lamp' }, de: { name: 'Lampe' } } } }))
  await publish(['products/lamp'])
  await ok(call('POST', `/content/other`, { body: { id: 'pages/solo', contentType: 'page', locales: { en: { title: 'Solo' } } }, token: TOKENS.outsider }))
  await publish(['pages/solo'], 'other', TOKENS.outsider)

  // Drafts, a restore of an old version into one, snapshots (one revoked) and a snapshot restore.
  await ok(call('POST', `/content/${TEAM}`, { body: { ...page('pages/about/draft', 99), id: 'pages/about/draft' } }))
  const versions = await ok(call('GET', `/content/versions/${TEAM}?id=pages/about&pageSize=100`))
  const oldest = versions.rows.at(-1).version
  await ok(call('POST', `/content/apply-version/${TEAM}`, { body: { kind: 'revision', documentId: 'pages/about', version: oldest, locales: ['de'] } }))
  const kept = await ok(call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/about', name: 'before the sale' } }), 201)
  const revoked = await ok(call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/p2' } }), 201)
  await ok(call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: revoked.id } }))
  await ok(call('POST', `/content/${TEAM}`, { body: { ...page('pages/p1/draft', 7), id: 'pages/p1/draft' } }))
  await ok(call('POST', `/content/apply-snapshot/${TEAM}`, { body: { documentId: 'pages/about', snapshotId: kept.id } }))

  // Two schedules: the dispatcher below runs the first (metric counter `ok`); the second waits.
  await ok(call('POST', `/content/${TEAM}`, { body: { ...page('pages/p2/draft', 8), id: 'pages/p2/draft' } }))
  await ok(call('POST', `/content/${TEAM}`, { body: { ...page('pages/p3/draft', 9), id: 'pages/p3/draft' } }))
  await ok(call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/p2', publishAt: new Date(Date.now() + HOUR).toISOString() } }), 201)
  await ok(call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/p3', publishAt: new Date(Date.now() + 48 * HOUR).toISOString() } }), 201)
  // Archived and unpublished documents: flags both ways.
  await ok(call('POST', `/content/archive/${TEAM}`, { body: { ids: ['products/lamp'] } }))
  await ok(call('POST', `/content/unpublish/${TEAM}`, { body: { ids: ['pages/p3'] } }))
  await ok(call('PUT', `/teams/${TEAM}/localization`, { body: { fallbacks: { de: 'en' } } }))

  // The dispatcher, two hours ahead: delivers to the good receiver, records a failed attempt and
  // a retry for the one that is down, runs the due schedule, coalesces the site change.
  let clock = Date.now() + 2 * HOUR
  const dispatcher = createDispatcher({
    db: ctx.db, log: createLogger('silent', 'test'), metrics: ctx.metrics, pollMs: 50, now: () => clock,
    allowPrivateTargets: true, timeoutMs: 5000, random: () => 0.5, siteChangeQuietMs: 30_000, siteChangeMaxHoldMs: 1_800_000,
  })
  await dispatcher.runUntilIdle()
  clock += 60_000
  await dispatcher.runUntilIdle()

  // Written after the dispatcher's last pass: outbox rows never tried, a site change not yet emitted.
  await ok(call('POST', `/content/${TEAM}`, { body: page('pages/p4', 4) }))
  await publish(['pages/p4'])
  await ok(call('PUT', `/teams/${TEAM}/localization`, { body: { fallbacks: { de: 'en', fr: 'en' } } }))
  await ok(call('PUT', `/teams/${TEAM}/features`, { body: { history: true, snapshots: false } }))
  // The newest outbox rows go with their webhook: SQLite's AUTOINCREMENT mark is then past the
  // largest seq left, and a copy must not hand those seqs out again.
  await ok(call('POST', `/content/other`, { body: { id: 'pages/solo', contentType: 'page', locales: { en: { title: 'Solo 2' } } }, token: TOKENS.outsider }))
  await publish(['pages/solo'], 'other', TOKENS.outsider)
  await ok(call('DELETE', `/teams/other/webhooks/${otherHook.id}`, { token: TOKENS.outsider }), 204)
  plainTextRevisions(ctx)
}

/**
 * Two revisions put back in the form a database written before compression holds (plain JSON
 * text, no summary: migration 0009, db/revision-body.ts): a keyframe and a delta's neighbour.
 * The copy must encode them, and they must read back as the same text.
 */
function plainTextRevisions(ctx: TestContext) {
  const c = sqliteOf(ctx.db).$client
  const rows = c.query<{ seq: number; body: Uint8Array }, []>("SELECT seq, body FROM revisions WHERE document_id = 'pages/about' AND ordinal IN (1, 3) ORDER BY seq").all()
  expect(rows).toHaveLength(2)
  for (const row of rows) c.query('UPDATE revisions SET body = ?, summary = NULL WHERE seq = ?').run(decodeStored(c, row.body), row.seq)
}
