/**
 * Claims across real processes on a real PostgreSQL server: three `bun` processes (each its own
 * pool and proof of life) drain 5,000 rows and no row is claimed twice; a claimer killed with
 * kill -9 has its rows taken by another within seconds, not at lease expiry; a claimer stopped
 * with SIGSTOP keeps them until its leases expire.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'bun:test'
import type { SQL, Subprocess } from 'bun'
import { describePg } from '../../../pg/harness'
import { outboxTestDb, seedOutbox, seedWebhooks, type OutboxTestDb } from './fixtures'
import { claimDue } from '../../../../db/pg/outbox/claim'
import { ownerIsAlive, PgLiveness } from '../../../../db/pg/outbox/liveness'

const CLAIMER = new URL('./claimer.ts', import.meta.url).pathname

interface Claimer {
  proc: Subprocess<'pipe', 'pipe', 'inherit'>
  owner: string
  lines: string[]
  /** Resolves with the first line starting with `prefix`. */
  line(prefix: string, timeoutMs?: number): Promise<string>
}

async function spawnClaimer(args: string[]): Promise<Claimer> {
  const proc = Bun.spawn(['bun', CLAIMER, ...args], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })
  const lines: string[] = []
  void (async () => {
    let rest = ''
    for await (const chunk of proc.stdout.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + chunk).split('\n')
      rest = parts.pop()!
      lines.push(...parts)
    }
  })()
  const line = async (prefix: string, timeoutMs = 30_000) => {
    const until = Date.now() + timeoutMs
    for (;;) {
      const found = lines.find((l) => l.startsWith(prefix))
      if (found) return found
      if (Date.now() > until) throw new Error(`no "${prefix}" line from the claimer in ${timeoutMs} ms; it printed: ${lines.join(' | ')}`)
      await Bun.sleep(5)
    }
  }
  const owner = (await line('ready ')).slice('ready '.length)
  return { proc, owner, lines, line }
}

interface Claim {
  token: string
  now: number
  expires: number
  seqs: number[]
}
const claimsOf = (c: Claimer): Claim[] =>
  c.lines.filter((l) => l.startsWith('claimed ')).map((l) => {
    const [, token, now, expires, seqs] = l.split(' ')
    return { token: token!, now: Number(now), expires: Number(expires), seqs: seqs!.split(',').map(Number) }
  })
const claimedSeqs = (c: Claimer) => claimsOf(c).flatMap((k) => k.seqs)

describePg('claims across processes on PostgreSQL', () => {
  let db: OutboxTestDb
  let sql: SQL
  const running: Claimer[] = []
  beforeAll(async () => {
    db = await outboxTestDb()
    sql = db.sql
    await seedWebhooks(sql, 5)
  })
  afterAll(async () => {
    for (const c of running) c.proc.kill('SIGKILL')
    await db?.drop()
  })
  beforeEach(async () => {
    await sql`TRUNCATE outbox, outbox_events, delivery_attempts`
  })

  test('three claiming processes drain 5,000 rows: every row claimed exactly once, recorded once, no record refused', async () => {
    await seedOutbox(sql, ['w0', 'w1', 'w2', 'w3', 'w4'], 1000, 0)
    const claimers = await Promise.all([0, 1, 2].map(() => spawnClaimer(['drain', db.url, '60000'])))
    running.push(...claimers)
    const t0 = performance.now()
    for (const c of claimers) c.proc.stdin.write('go\n'), c.proc.stdin.flush()
    await Promise.all(claimers.map((c) => c.line('done', 120_000)))
    const ms = performance.now() - t0
    expect(await Promise.all(claimers.map((c) => c.proc.exited))).toEqual([0, 0, 0])
    const per = claimers.map(claimedSeqs)
    const all = per.flat()
    const seqs = (await sql`SELECT seq::float8 AS seq FROM outbox ORDER BY seq`).map((r: { seq: number }) => r.seq)
    expect(seqs.length).toBe(5000)
    expect(all.length).toBe(5000) // none twice ...
    expect([...all].sort((a, b) => a - b)).toEqual(seqs) // ... and every one
    for (const mine of per) expect(mine.length).toBeGreaterThan(0) // all three really claimed side by side
    expect(claimers.map((c) => c.lines.find((l) => l.startsWith('refused ')))).toEqual(['refused 0', 'refused 0', 'refused 0'])
    expect(await sql`SELECT status, count(*)::int AS n FROM outbox GROUP BY status`).toEqual([{ status: 'delivered', n: 5000 }])
    expect(await sql`SELECT count(*)::int AS n, count(DISTINCT outbox_seq)::int AS rows, max(attempt) AS most FROM delivery_attempts`).toEqual([{ n: 5000, rows: 5000, most: 1 }])
    console.log(`3 processes drained 5,000 rows in ${ms.toFixed(0)} ms (rows claimed per process: ${per.map((p) => p.length).join(', ')})`)
  })

  test('three claiming processes with 40 ms leases and sends of up to 80 ms: a row is claimed again only after its lease expired, and delivered once', async () => {
    await seedOutbox(sql, ['w0', 'w1', 'w2', 'w3', 'w4'], 200, 0)
    const leaseMs = 40
    const claimers = await Promise.all([0, 1, 2].map(() => spawnClaimer(['drain', db.url, String(leaseMs), '80'])))
    running.push(...claimers)
    for (const c of claimers) c.proc.stdin.write('go\n'), c.proc.stdin.flush()
    await Promise.all(claimers.map((c) => c.line('done', 120_000)))
    expect(await Promise.all(claimers.map((c) => c.proc.exited))).toEqual([0, 0, 0])
    const bySeq = new Map<number, Claim[]>()
    for (const claim of claimers.flatMap(claimsOf)) for (const seq of claim.seqs) bySeq.set(seq, [...(bySeq.get(seq) ?? []), claim])
    expect(bySeq.size).toBe(1000)
    let again = 0
    for (const claims of bySeq.values()) {
      claims.sort((a, b) => a.now - b.now)
      for (let i = 1; i < claims.length; i++, again++) expect(claims[i]!.now).toBeGreaterThanOrEqual(claims[i - 1]!.expires)
    }
    expect(again).toBeGreaterThan(0) // leases did run out: the check above had something to check
    const refused = claimers.reduce((n, c) => n + Number(c.lines.find((l) => l.startsWith('refused '))!.split(' ')[1]), 0)
    expect(refused).toBe(again) // every claim but the last of each row lost its lease before its record
    expect(await sql`SELECT status, count(*)::int AS n FROM outbox GROUP BY status`).toEqual([{ status: 'delivered', n: 1000 }])
    expect(await sql`SELECT count(*)::int AS n, count(DISTINCT outbox_seq)::int AS rows, max(attempt) AS most FROM delivery_attempts`).toEqual([{ n: 1000, rows: 1000, most: 1 }])
    console.log(`40 ms leases: ${again} of ${again + 1000} claims were of rows whose earlier lease had expired; none overlapped`)
  })

  test('a claimer killed with kill -9 while holding leases: another process takes its rows within 5 s, long before the leases expire', async () => {
    await seedOutbox(sql, ['w0'], 100, 0)
    const victim = await spawnClaimer(['hold', db.url, '60000', '40'])
    running.push(victim)
    await victim.line('claimed ')
    const held = claimedSeqs(victim)
    expect(held.length).toBe(40)
    const me = new PgLiveness(sql)
    const owner = await me.start()
    try {
      expect(await ownerIsAlive(sql, victim.owner)).toBe(true)
      // Alive: its rows are not due; the 60 others are.
      const rest = await claimDue(sql, { now: Date.now(), leaseMs: 60_000, limit: 1000, owner })
      expect(rest.length).toBe(60)
      expect(rest.some((r) => held.includes(r.seq))).toBe(false)
      victim.proc.kill('SIGKILL')
      const t0 = performance.now()
      let taken: number[] = []
      while (taken.length === 0 && performance.now() - t0 < 5000) {
        taken = (await claimDue(sql, { now: Date.now(), leaseMs: 60_000, limit: 1000, owner })).map((r) => r.seq)
        if (taken.length === 0) await Bun.sleep(10)
      }
      const ms = performance.now() - t0
      expect(taken).toEqual(held)
      expect(await ownerIsAlive(sql, victim.owner)).toBe(false)
      expect(await ownerIsAlive(sql, owner)).toBe(true)
      console.log(`a kill -9'd claimer's 40 rows were claimed by another ${ms.toFixed(0)} ms after the kill (lease: 60 s)`)
    } finally {
      await me.stop()
    }
  })

  test('a claimer stopped with SIGSTOP keeps its rows until its leases expire, then they are claimed', async () => {
    await seedOutbox(sql, ['w0'], 20, 0)
    const leaseMs = 3000
    const stopped = await spawnClaimer(['hold', db.url, String(leaseMs), '20'])
    running.push(stopped)
    await stopped.line('claimed ')
    const { expires } = claimsOf(stopped)[0]!
    stopped.proc.kill('SIGSTOP')
    try {
      // Until the lease expires (checked up to 300 ms before): alive, so nothing is due.
      while (Date.now() < expires - 300) {
        expect(await claimDue(sql, { now: Date.now(), leaseMs: 60_000, limit: 100 })).toEqual([])
        await Bun.sleep(100)
      }
      expect(await ownerIsAlive(sql, stopped.owner)).toBe(true)
      while (Date.now() < expires) await Bun.sleep(10)
      const taken = await claimDue(sql, { now: Date.now(), leaseMs: 60_000, limit: 100 })
      expect(taken.map((r) => r.seq)).toEqual(claimedSeqs(stopped))
    } finally {
      stopped.proc.kill('SIGCONT')
      stopped.proc.kill('SIGKILL')
    }
  })
})
