/**
 * Three dispatcher processes on one PostgreSQL outbox (dispatcher/pg-outbox-runner.ts: the outbox
 * half of the dispatcher, until core runs on PostgreSQL), 5,000 events to a real receiver on
 * 127.0.0.1, one runner killed with kill -9 mid-burst and another stopped with SIGTERM mid-burst.
 * Every event arrives and every row ends delivered; the events that arrive twice are exactly the
 * rows the killed runner held when it died and had already sent (in flight, or answered and not
 * yet recorded), which the others take at once (its proof of life went with its session); the
 * SIGTERM'd one exits 0 holding nothing, so none of its rows goes twice.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { pgClientOptions } from '../../db/pg/client'
import { insertEvent } from '../../db/pg/outbox/insert-event'
import { waitFor } from '../helpers'
import { startReceiver, type TestReceiver } from '../test-receiver'
import { describePg, pgDatabase, type PgTestDatabase } from '../pg/harness'
import { liveOwners, spawnPgRunner, type PgRunner } from '../pg/runner'

const EVENTS = 5000
const PER_TX = 1000
/** The receiver's think time: 16 sends in flight per runner then make ~800 deliveries/s each, so the burst lasts seconds, not one. */
const RECEIVER_MS = 20
/** Sends in flight per runner (one webhook). */
const PER_WEBHOOK = 16

describePg('three PostgreSQL outbox runners, one killed with kill -9 and one stopped with SIGTERM mid-burst', () => {
  let pg: PgTestDatabase
  let sql: SQL
  let rx: TestReceiver
  const runners: PgRunner[] = []
  beforeAll(async () => {
    pg = await pgDatabase()
    sql = new SQL(pgClientOptions(pg.url, { processName: 'test', poolSize: 4 }))
    rx = startReceiver([{ status: 200, body: 'ok', delayMs: RECEIVER_MS }])
    await sql`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES ('acme', 'main', '["en"]'::json, 'en', '2026-01-01T00:00:00.0000000Z')`
    await sql`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, created_at, updated_at)
      VALUES ('w0', 'acme', 'site', 'custom', ${rx.url}, '["content.published"]'::json, 'whsec', 'now', 'now')`
  })
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.cleanup()))
    rx?.stop()
    await sql?.close()
    await pg?.drop()
  })

  test('every event arrives, duplicates only of rows the killed one held, none from the stopped one', async () => {
    for (let i = 0; i < 3; i++) runners.push(spawnPgRunner(pg.url, { DISPATCHER_POLL_MS: '1000', DISPATCHER_PER_WEBHOOK: String(PER_WEBHOOK) }))
    await waitFor(() => runners.every((r) => r.owner()), 20_000, 'three runners holding their proof of life')
    expect(await liveOwners(sql)).toBe(3)
    const [killed, stopped] = runners as [PgRunner, PgRunner, PgRunner]
    const ids = Array.from({ length: EVENTS }, (_, i) => `e${i}`)

    const t0 = performance.now()
    const writing = (async () => {
      for (let from = 0; from < EVENTS; from += PER_TX) {
        // The events of one transaction pipelined (each insertEvent's own statements stay in order).
        await sql.begin((tx) => Promise.all(ids.slice(from, from + PER_TX).map((id) =>
          insertEvent(tx, { eventId: id, teamId: 'acme', eventType: 'content.published', bytes: JSON.stringify({ v: 2, eventId: id }), webhookIds: ['w0'], at: Date.now() }))))
      }
      return performance.now() - t0
    })()

    // kill -9 mid-burst. Paused first, and given time for a claim, a record or a request already on
    // the wire to land, so what it holds when read is what it held when it died, and every request
    // it sent has arrived.
    await waitFor(() => rx.requests.length >= 1000, 30_000, '1,000 deliveries')
    killed.proc.kill('SIGSTOP')
    await Bun.sleep(300)
    const held = new Set([...await sql`SELECT event_id FROM outbox WHERE status = 'pending' AND lease_token LIKE ${killed.owner() + '/%'}`].map((r) => r.event_id as string))
    const receivedAtKill = rx.requests.length
    killed.proc.kill('SIGKILL')
    expect(await killed.proc.exited).not.toBe(0)

    // SIGTERM mid-burst: it stops claiming, gives back what it claimed ahead, finishes and records its sends.
    await waitFor(() => rx.requests.length >= receivedAtKill + 1000, 30_000, '1,000 more deliveries')
    const receivedAtStop = rx.requests.length
    stopped.proc.kill('SIGTERM')
    expect(await stopped.proc.exited).toBe(0)
    await stopped.out.done
    const writeMs = await writing
    expect(stopped.out.text).toContain('"msg":"pg outbox runner stopped"')
    expect((await sql`SELECT count(*)::int AS n FROM outbox WHERE lease_token LIKE ${stopped.owner() + '/%'}`)[0].n).toBe(0)
    expect(await liveOwners(sql)).toBe(1)

    await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM outbox WHERE status = 'delivered'`)[0].n === EVENTS, 60_000, 'every row delivered')
    const seconds = (Math.max(...rx.requests.map((r) => r.at)) - (t0 + performance.timeOrigin)) / 1000

    // Mid-burst, both: neither stop came before the first delivery or after the last.
    expect(receivedAtKill).toBeLessThan(EVENTS)
    expect(receivedAtStop).toBeLessThan(EVENTS)
    expect(held.size).toBeGreaterThan(0)

    const counts = new Map<string, number>()
    for (const r of rx.requests) {
      const id = r.headers['x-service-delivery']!
      counts.set(id, (counts.get(id) ?? 0) + 1)
    }
    expect([...counts.keys()].sort()).toEqual([...ids].sort()) // every event arrived, nothing else did
    const twice = [...counts].filter(([, n]) => n > 1)
    console.log(`5,000 events through 3 runners (one kill -9'd, one SIGTERM'd): ${seconds.toFixed(2)} s, ${(EVENTS / seconds).toFixed(0)} deliveries/s (written in ${(writeMs / 1000).toFixed(2)} s, receiver ${RECEIVER_MS} ms per request); killed one held ${held.size} rows; received ${twice.length} twice, ${rx.requests.length} requests`)
    expect(twice.filter(([id, n]) => n > 2 || !held.has(id))).toEqual([]) // only the killed one's rows, each at most twice
    // Exactly those of its rows that had reached the receiver: sent (in flight, or answered and
    // waiting for its batched record, so more than its 16 in flight) and never recorded. Its rows
    // claimed ahead and not sent went once, after it died.
    const sentByKilled = new Set(rx.requests.slice(0, receivedAtKill).map((r) => r.headers['x-service-delivery']!).filter((id) => held.has(id)))
    expect(twice.map(([id]) => id).sort()).toEqual([...sentByKilled].sort())
    expect(rx.requests.length).toBe(EVENTS + twice.length)
    expect([...await sql`SELECT status::text AS status, count(*)::int AS n, count(lease_token)::int AS leased FROM outbox GROUP BY 1`]).toEqual([{ status: 'delivered', n: EVENTS, leased: 0 }])
  })
})
