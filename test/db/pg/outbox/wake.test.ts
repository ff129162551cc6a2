/**
 * Wake on commit on PostgreSQL (db/pg/outbox/wake.ts): an event inserted in a committed
 * transaction wakes a LISTENing connection (the latency is printed); a rolled-back one does
 * not; a webhook's PATCH or DELETE wakes it too; a listener whose connection was cut is woken
 * once it is back. And proof of life lost with its session (db/pg/outbox/liveness.ts).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { pgClientOptions } from '../../../../db/pg/client'
import { describePg } from '../../../pg/harness'
import { outboxTestDb, seedWebhooks, type OutboxTestDb } from './fixtures'
import { insertEvent } from '../../../../db/pg/outbox/insert-event'
import { listenForWakes } from '../../../../db/pg/outbox/wake'
import { requeueManual } from '../../../../db/pg/outbox/requeue-manual'
import { deleteWebhookRow, updateWebhookRow, webhookOf } from '../../../../db/pg/queries/webhooks'
import { ownerIsAlive, PgLiveness } from '../../../../db/pg/outbox/liveness'

const event = (eventId: string) => ({ eventId, teamId: 'acme', eventType: 'content.published', bytes: '{}', webhookIds: ['w0', 'w1'], at: 0 })

async function until(check: () => boolean, timeoutMs: number, what: string) {
  const end = performance.now() + timeoutMs
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(1)
  }
}

describePg('wake on commit and proof of life on PostgreSQL', () => {
  let db: OutboxTestDb
  let listening: SQL
  beforeAll(async () => {
    db = await outboxTestDb()
    await seedWebhooks(db.sql, 2)
    listening = new SQL(pgClientOptions(db.url, { processName: 'test listener', poolSize: 1 })) // the dispatcher's side: a pool of its own
  })
  afterAll(async () => {
    await listening?.close()
    await db?.drop()
  })

  test('a committed insert wakes a listener, once per transaction; a rolled-back one never does', async () => {
    const wakes: number[] = []
    const listener = await listenForWakes(listening, () => wakes.push(performance.now()))
    try {
      const latencies: number[] = []
      for (let i = 0; i < 20; i++) {
        const before = wakes.length
        let committing = 0
        await db.sql.begin(async (tx) => {
          await insertEvent(tx, event(`c${i}`))
          await insertEvent(tx, event(`c${i}b`)) // two events, one wake: the same payload is folded
          committing = performance.now() // the callback returns, COMMIT goes out
        })
        await until(() => wakes.length > before, 2000, 'the wake of a committed insert')
        latencies.push(wakes[before]! - committing)
      }
      await Bun.sleep(50)
      expect(wakes.length).toBe(20)
      const rolledBack = db.sql.begin(async (tx) => {
        await insertEvent(tx, event('r1'))
        throw new Error('roll back')
      })
      await expect(rolledBack).rejects.toThrow('roll back')
      // Notifications arrive in commit order: had the rolled-back one been sent, it would come before this one.
      await db.sql.begin((tx) => insertEvent(tx, event('after')))
      await until(() => wakes.length > 20, 2000, 'the wake after the rollback')
      await Bun.sleep(100)
      expect(wakes.length).toBe(21)
      expect(await db.sql`SELECT count(*)::int AS n FROM outbox WHERE event_id = 'r1'`).toEqual([{ n: 0 }])
      latencies.sort((a, b) => a - b)
      console.log(`commit to wake: p50 ${latencies[10]!.toFixed(2)} ms, max ${latencies[19]!.toFixed(2)} ms (20 commits)`)
      expect(latencies[10]!).toBeLessThan(100)
    } finally {
      await listener.close()
    }
  })

  test('a redeliver (requeue-manual) wakes a listener too, as a new event does', async () => {
    await db.sql.begin((tx) => insertEvent(tx, event('again')))
    await db.sql`UPDATE outbox SET status = 'delivered' WHERE event_id = 'again'`
    const [{ seq }] = await db.sql`SELECT seq::int AS seq FROM outbox WHERE event_id = 'again' ORDER BY seq LIMIT 1`
    const wakes: number[] = []
    const listener = await listenForWakes(listening, () => wakes.push(performance.now()))
    try {
      await requeueManual(db.sql, seq, Date.now())
      await until(() => wakes.length === 1, 2000, 'the wake of a redeliver')
      expect(await db.sql`SELECT status FROM outbox WHERE seq = ${seq}`).toEqual([{ status: 'pending' }])
    } finally {
      await listener.close()
    }
  })

  test("a webhook's PATCH or DELETE wakes a listener, on commit (a dispatcher's webhook cache reads it again)", async () => {
    const wakes: number[] = []
    const listener = await listenForWakes(listening, () => wakes.push(performance.now()))
    try {
      // A webhook of this test's own (the events of the others name w0 and w1).
      await db.sql`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, created_at, updated_at)
        VALUES ('w9', 'acme', 'w9', 'custom', 'http://127.0.0.1:9/x', '["content.published"]'::json, 's', 'now', 'now')`
      await Bun.sleep(100)
      expect(wakes.length).toBe(0) // a new webhook has no row claimed ahead: no wake
      const w9 = (await webhookOf(db.sql, 'acme', 'w9'))!
      await updateWebhookRow(db.sql, 'w9', { ...w9, target: 'http://127.0.0.1:9/moved' })
      await until(() => wakes.length === 1, 2000, 'the wake of a PATCH')
      const rolledBack = db.sql.begin(async (tx) => {
        await deleteWebhookRow(tx, 'w9')
        throw new Error('roll back')
      })
      await expect(rolledBack).rejects.toThrow('roll back')
      await db.sql.begin((tx) => deleteWebhookRow(tx, 'w9'))
      await until(() => wakes.length === 2, 2000, 'the wake of a DELETE')
      await Bun.sleep(100)
      expect(wakes.length).toBe(2) // none for the DELETE rolled back
    } finally {
      await listener.close()
    }
  })

  test('a listener whose connection was cut is woken when it is back, then by commits again', async () => {
    const wakes: number[] = []
    const listener = await listenForWakes(listening, () => wakes.push(performance.now()))
    try {
      const [cut] = await db.sql`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`
      expect(cut).toEqual({ ok: true })
      // Whatever was committed while it was away was never announced to it: one wake on its return.
      await until(() => wakes.length === 1, 10_000, 'the wake on reconnect')
      await db.sql.begin((tx) => insertEvent(tx, event('back')))
      await until(() => wakes.length === 2, 2000, 'a wake after the reconnect')
    } finally {
      await listener.close()
    }
  })

  test('proof of life: held while the session lives; gone with it (the owner is dead, and its process knows)', async () => {
    const a = new PgLiveness(db.sql)
    const owner = await a.start()
    expect(a.owner).toBe(owner)
    expect(await ownerIsAlive(db.sql, owner)).toBe(true)
    expect(await ownerIsAlive(db.sql, crypto.randomUUID())).toBe(false)
    expect(await a.check()).toBe(true)
    const [cut] = await db.sql`SELECT pg_terminate_backend(l.pid, 5000) AS ok FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.objid = hashtext(${owner})::oid`
    expect(cut).toEqual({ ok: true })
    expect(await ownerIsAlive(db.sql, owner)).toBe(false)
    expect(await a.check()).toBe(false)
    expect(a.owner).toBeNull()
    const again = await a.start() // a new owner id: the old one's rows may already be someone else's
    expect(again).not.toBe(owner)
    expect(await ownerIsAlive(db.sql, again)).toBe(true)
    await a.stop()
    expect(await ownerIsAlive(db.sql, again)).toBe(false)
  })
})
