/**
 * The SAME claim / record / lease scenario against both OutboxStore implementations: SQLite on a
 * file, PostgreSQL on a fresh database (skipped, with the reason printed, without
 * TEST_DATABASE_URL; failed under CI=true). What the dispatcher relies on must hold on either:
 * budgets per webhook, a leased row invisible to another dispatcher's claim, records guarded by
 * the lease token, a released row claimable at once, a retry due at its time, an expired lease
 * claimable, a killed dispatcher's rows claimable before their lease ends (proof of life), and
 * the send target, row existence and retention steps the loop asks for.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import type { ClaimedRow, OutboxStore, StoreClaimOptions } from '../../../db/outbox/store'
import { describePg } from '../../pg/harness'
import { pgWorld, sqliteWorld, type StoreWorld } from './store-fixture'

const answer = (statusCode: number) => ({ statusCode, error: null, durationMs: 3, responseBody: 'ok' })
const delivered = { status: 'delivered' as const }
const claim = (s: OutboxStore, now: number, over: Partial<StoreClaimOptions> = {}) =>
  s.claim({ now, leaseMs: 5000, limit: 100, budget: () => 100, ...over })
const seqs = (rows: readonly ClaimedRow[]) => rows.map((r) => r.seq)

let world: StoreWorld | null = null
afterEach(async () => {
  await world?.close()
  world = null
})

function scenarios(open: (events: number, at: number) => Promise<StoreWorld>) {
  test('claims within budgets, leases others cannot take, token-guarded records, release, retry and expiry', async () => {
    const w = (world = await open(6, 1000))
    const a = w.store()
    const b = w.store()
    const ownerA = await a.startProofOfLife()
    expect(ownerA).toEqual(expect.any(String))
    expect(await b.startProofOfLife()).not.toBe(ownerA)
    expect((await a.webhookIds()).sort()).toEqual(['w0', 'w1'])
    expect(await claim(a, 999)).toEqual([]) // nothing due yet
    const budgets: Record<string, number> = { w0: 3, w1: 2 }
    const mine = await claim(a, 1000, { limit: 10, budget: (id) => budgets[id]! })
    // Each webhook's earliest due rows within its budget, in seq order (events e1.. to w0 and w1 in turn).
    expect(mine.map((r) => [r.webhookId, r.eventId, r.payload])).toEqual([
      ['w0', 'e1', '{"n":1}'], ['w1', 'e1', '{"n":1}'], ['w0', 'e2', '{"n":2}'], ['w1', 'e2', '{"n":2}'], ['w0', 'e3', '{"n":3}'],
    ])
    expect(mine.every((r) => r.leaseToken === mine[0]!.leaseToken && r.leaseToken!.startsWith(`${ownerA}/`))).toBe(true)
    expect(mine[0]).toMatchObject({ status: 'pending', attempts: 0, trigger: 'scheduled', eventType: 'content.published' })
    const all = seqs(await w.rows().then((rows) => rows.map((r) => ({ seq: r.seq }) as ClaimedRow)))
    const theirs = await claim(b, 1000)
    expect(seqs(theirs)).toEqual(all.filter((s) => !seqs(mine).includes(s))) // every row a does not hold
    expect(await claim(b, 1000)).toEqual([])

    const [d, r, f, g, h] = mine as [ClaimedRow, ClaimedRow, ClaimedRow, ClaimedRow, ClaimedRow]
    expect(await a.recordAttempts([
      { row: d, result: answer(200), step: delivered, startedAt: 1001 },
      { row: r, result: answer(500), step: { status: 'pending', delayMs: 1500 }, startedAt: 1001 },
      { row: f, result: answer(410), step: { status: 'failed' }, startedAt: 1001 },
      { row: { ...g, leaseToken: 'stale' }, result: answer(200), step: delivered, startedAt: 1001 },
    ], 1010)).toEqual([true, true, true, false])
    await a.releaseLease({ ...h, leaseToken: 'stale' }) // not its token: nothing happens
    await a.releaseLease(g)
    expect(seqs(await claim(b, 2503))).toEqual([g.seq]) // released: claimable at once; the retry not yet due
    expect(seqs(await claim(b, 2504))).toEqual([r.seq]) // due 1.5 s after its answer (1001 + 3 ms)
    expect(await claim(b, 5999)).toEqual([]) // a's lease on h runs to 6000
    expect(seqs(await claim(b, 6000))).toEqual([h.seq, ...seqs(theirs)].sort((x, y) => x - y)) // expired: h, and b's own first claim
    expect(await a.recordAttempts([{ row: h, result: answer(200), step: delivered, startedAt: 6001 }], 6002)).toEqual([false])

    const byseq = new Map((await w.rows()).map((row) => [row.seq, row]))
    expect([d, r, f, g, h].map((row) => byseq.get(row.seq)).map(({ status, attempts, leaseToken }: any) => [status, attempts, leaseToken?.split('/')[0] ?? null])).toEqual([
      ['delivered', 1, null], ['pending', 1, expect.any(String)], ['failed', 1, null], ['pending', 0, expect.any(String)], ['pending', 0, expect.any(String)],
    ])
    expect(await w.attempts()).toEqual([
      { outboxSeq: d.seq, attempt: 1, statusCode: 200 }, { outboxSeq: r.seq, attempt: 1, statusCode: 500 }, { outboxSeq: f.seq, attempt: 1, statusCode: 410 },
    ])
  })

  test('send target, row exists, and a retention step that takes finished deliveries with their attempts and bytes', async () => {
    const w = (world = await open(3, 1000))
    const s = w.store()
    expect(await s.sendTarget('w0')).toEqual({ provider: 'custom', target: 'http://127.0.0.1:9/x', secret: 's', options: {} })
    expect(await s.sendTarget('nope')).toBeNull()
    const done = await claim(s, 1000, { budget: () => 1 }) // e1 to w0 and to w1
    expect(done.map((r) => [r.webhookId, r.eventId])).toEqual([['w0', 'e1'], ['w1', 'e1']])
    expect(await s.recordAttempts(done.map((row) => ({ row, result: answer(200), step: delivered, startedAt: 1001 })), 1010)).toEqual([true, true])
    expect(await s.rowExists(done[0]!.seq)).toBe(true)
    expect(await s.prune(1010, 10, () => true, 0)).toEqual({ deliveries: 0, events: 0, siteChanges: 0, next: null }) // not older than the cutoff
    expect(await s.prune(1011, 10, () => true, 0)).toEqual({ deliveries: 2, events: 1, siteChanges: 0, next: null })
    expect(await s.rowExists(done[0]!.seq)).toBe(false)
    expect(await w.attempts()).toEqual([])
    expect((await w.rows()).map((r) => r.status)).toEqual(['pending', 'pending', 'pending', 'pending']) // pending work stays, whatever its age
  })

  test('a dispatcher killed with kill -9: its leased rows are claimed before their lease ends; alive, they are not', async () => {
    const w = (world = await open(4, 1000))
    const b = w.store()
    await b.startProofOfLife()
    const holder = Bun.spawn(['bun', new URL('./store-holder.ts', import.meta.url).pathname, ...w.holderArgs, '3', '1000', '60000'], { stdout: 'pipe', stderr: 'inherit' })
    try {
      const line = (await holder.stdout.getReader().read()).value
      const held = JSON.parse(new TextDecoder().decode(line)) as { owner: string; token: string; seqs: number[] }
      expect(held.seqs).toHaveLength(3)
      expect(held.token.startsWith(`${held.owner}/`)).toBe(true)
      expect(await b.checkProofOfLife(2000)).toBe(true)
      const free = seqs(await claim(b, 2000)) // the rest, never the live holder's
      expect(free).toHaveLength(5)
      expect(free.some((s) => held.seqs.includes(s))).toBe(false)
      holder.kill(9)
      await holder.exited
      // The server notices a closed session within milliseconds; the kernel drops a flock at exit.
      const t0 = performance.now()
      let taken: number[] = []
      while (taken.length === 0 && performance.now() - t0 < 5000) {
        await b.checkProofOfLife(2001)
        taken = seqs(await claim(b, 2001))
        if (taken.length === 0) await Bun.sleep(5)
      }
      expect(taken).toEqual(held.seqs) // at 2001, 59 s before their lease ends
    } finally {
      holder.kill(9)
    }
  })
}

describe('OutboxStore on SQLite', () => scenarios(sqliteWorld))
describePg('OutboxStore on PostgreSQL', () => scenarios(pgWorld))
