/**
 * The outbox operations of db/pg/outbox/ on a real PostgreSQL server, through one delivery's
 * life (the twin of test/db/outbox/outbox.test.ts), and a claim beside another claim's open
 * transaction: SKIP LOCKED passes over its rows instead of waiting for them.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { describePg } from '../../../pg/harness'
import { outboxTestDb, seedOutbox, seedWebhooks, type OutboxTestDb } from './fixtures'
import { claimDue } from '../../../../db/pg/outbox/claim'
import { insertEvent } from '../../../../db/pg/outbox/insert-event'
import { recordAttempts } from '../../../../db/pg/outbox/record-attempts'
import { releaseLease } from '../../../../db/pg/outbox/release-lease'
import { requeueManual } from '../../../../db/pg/outbox/requeue-manual'
import { listWebhookIds } from '../../../../db/pg/outbox/webhook-ids'

const answer = (statusCode: number) => ({ statusCode, error: null, durationMs: 3, responseBody: 'ok' })

describePg('outbox operations on PostgreSQL', () => {
  let db: OutboxTestDb
  let sql: SQL
  beforeAll(async () => {
    db = await outboxTestDb()
    sql = db.sql
    await seedWebhooks(sql, 2)
  })
  afterAll(() => db?.drop())
  beforeEach(async () => {
    await sql`TRUNCATE outbox, outbox_events, delivery_attempts`
  })

  test('insert, claim under a lease, release, claim again, record (a stale token writes nothing); then a manual requeue', async () => {
    expect(await listWebhookIds(sql)).toEqual(['w0', 'w1'])
    const hook = 'w0'
    expect(await sql.begin((tx) => insertEvent(tx, { eventId: 'e1', teamId: 'acme', eventType: 'content.published', bytes: '{"a":1}', webhookIds: [hook], at: 1000 }))).toBe(1)
    // The same event again: nothing changes.
    await sql.begin((tx) => insertEvent(tx, { eventId: 'e1', teamId: 'acme', eventType: 'content.published', bytes: '{"other":1}', webhookIds: [hook], at: 1000 }))
    expect(await claimDue(sql, { now: 999, leaseMs: 5000, limit: 10 })).toEqual([]) // not due yet
    const [row] = await claimDue(sql, { now: 1000, leaseMs: 5000, limit: 10 })
    expect(row).toEqual({ seq: row!.seq, eventId: 'e1', webhookId: hook, eventType: 'content.published', status: 'pending', attempts: 0, trigger: 'scheduled', leaseToken: row!.leaseToken, payload: '{"a":1}' })
    expect(typeof row!.seq).toBe('number')
    expect(await claimDue(sql, { now: 1000, leaseMs: 5000, limit: 10 })).toEqual([]) // leased
    await releaseLease(sql, row!)
    const [again] = await claimDue(sql, { now: 1001, leaseMs: 5000, limit: 10 })
    expect(again!.leaseToken).not.toBe(row!.leaseToken)
    // The old token's record is refused and leaves no attempt row; the holder's goes in with its attempt row.
    const step = { status: 'pending' as const, delayMs: 1500 }
    expect(await recordAttempts(sql, [{ row: row!, result: answer(500), step, startedAt: 1002 }], 1010)).toEqual([false])
    expect(await sql`SELECT count(*)::int AS n FROM delivery_attempts`).toEqual([{ n: 0 }])
    expect(await sql`SELECT status, attempts, lease_token FROM outbox`).toEqual([{ status: 'pending', attempts: 0, lease_token: again!.leaseToken }])
    expect(await recordAttempts(sql, [{ row: row!, result: answer(500), step, startedAt: 1002 }, { row: again!, result: answer(500), step, startedAt: 1002 }], 1010)).toEqual([false, true])
    expect(await claimDue(sql, { now: 1002 + 3 + 1499, leaseMs: 5000, limit: 10 })).toEqual([]) // due 1.5 s after the answer
    expect((await claimDue(sql, { now: 1002 + 3 + 1500, leaseMs: 5000, limit: 10 })).length).toBe(1)
    await requeueManual(sql, row!.seq, 3000)
    const [manual] = await claimDue(sql, { now: 3000, leaseMs: 5000, limit: 10 })
    expect(manual).toMatchObject({ attempts: 0, trigger: 'manual' })
    expect(await recordAttempts(sql, [{ row: manual!, result: answer(200), step: { status: 'delivered' }, startedAt: 3001 }], 3010)).toEqual([true])
    expect(await sql`SELECT status, attempts, next_attempt_at::float8 AS next_attempt_at, lease_token, lease_expires_at, trigger, updated_at::float8 AS updated_at FROM outbox`).toEqual([
      { status: 'delivered', attempts: 1, next_attempt_at: 3000, lease_token: null, lease_expires_at: null, trigger: 'manual', updated_at: 3010 },
    ])
    const attempts = await sql`SELECT attempt, trigger, started_at, status_code, error, duration_ms, response_body, next_attempt_at FROM delivery_attempts ORDER BY id`
    expect(attempts.map((a: any) => [a.attempt, a.trigger, Number(a.started_at), a.status_code, a.next_attempt_at === null ? null : Number(a.next_attempt_at)])).toEqual([
      [1, 'scheduled', 1002, 500, 2505],
      [1, 'manual', 3001, 200, null],
    ])
  })

  test('budgets: per webhook, then the overall limit in webhook order; an expired lease is due again', async () => {
    await seedOutbox(sql, ['w0', 'w1'], 10, 0)
    const first = await claimDue(sql, { now: 0, leaseMs: 100, limit: 7, perWebhook: 4, inFlight: { w0: 1 } })
    expect(first.map((r) => r.webhookId).sort()).toEqual(['w0', 'w0', 'w0', 'w1', 'w1', 'w1', 'w1'])
    expect(first.map((r) => r.seq)).toEqual(first.map((r) => r.seq).sort((a, b) => a - b))
    expect(first.filter((r) => r.webhookId === 'w0').map((r) => r.eventId)).toEqual(['e1', 'e2', 'e3'])
    expect(new Set(first.map((r) => r.leaseToken)).size).toBe(1)
    const second = await claimDue(sql, { now: 50, leaseMs: 100, limit: 100, budget: (id) => (id === 'w1' ? 2 : 0) })
    expect(second.map((r) => [r.webhookId, r.eventId])).toEqual([['w1', 'e5'], ['w1', 'e6']])
    // At 100 the first claim's leases have expired: its rows (the earliest due) come back first.
    const third = await claimDue(sql, { now: 100, leaseMs: 100, limit: 100, perWebhook: 3, webhookIds: ['w0'] })
    expect(third.map((r) => r.eventId)).toEqual(['e1', 'e2', 'e3'])
  })

  test('a claim passes over the rows of a claim whose transaction is still open, without waiting for it', async () => {
    await seedOutbox(sql, ['w0'], 10, 0)
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let firstRows: number[] = []
    const open = sql.begin(async (tx) => {
      firstRows = (await claimDue(tx, { now: 0, leaseMs: 60_000, limit: 4, webhookIds: ['w0'] })).map((r) => r.seq)
      await held // the rows stay locked (uncommitted) until here
    })
    while (firstRows.length === 0) await Bun.sleep(5)
    const t0 = performance.now()
    const second = await claimDue(sql, { now: 0, leaseMs: 60_000, limit: 4, webhookIds: ['w0'] })
    const waited = performance.now() - t0
    release()
    await open
    expect(second.map((r) => r.eventId)).toEqual(['e5', 'e6', 'e7', 'e8'])
    expect(second.some((r) => firstRows.includes(r.seq))).toBe(false)
    expect(waited).toBeLessThan(1000)
    expect((await claimDue(sql, { now: 0, leaseMs: 60_000, limit: 10 })).map((r) => r.eventId)).toEqual(['e9', 'e10'])
  })
})
