/**
 * bench/dispatch.ts on PostgreSQL (with DATABASE_URL): deliveries per second with 1, 2 and 4 real
 * dispatcher processes (dispatcher/main.ts on DATABASE_URL, as deployed) draining one outbox, to
 * the same receiver as the SQLite rounds, timed the same way (docs/postgresql.md "Figures").
 *
 * A fresh database `bench_dispatch_<random>` on DATABASE_URL's server gets the test team (seeded
 * on SQLite, copied with `cli copy-to-postgres`) and the webhook, made through the api on it;
 * it is dropped at the end. Each round commits N events to that webhook (pipelined in
 * transactions of CHUNK) and times from before the first commit to the last request the receiver
 * got; the round ends when every row is recorded. One unmeasured round per setup first (the JIT,
 * the connections), then `rounds` rounds; the median is printed.
 */
import { readFileSync } from 'node:fs'
import { openDb, type Db } from '../db/client'
import { insertEvent } from '../db/pg/outbox/insert-event'
import { OWNER_LOCK_SPACE } from '../db/pg/outbox/liveness'
import { createApp } from '../api/app'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { serialiseEvent } from '../core/events/record'
import { samplePayload } from '../core/webhooks/deliveries'
import { seed } from '../cli/seed'
import { testSeed, TEAM, TOKENS } from '../test/helpers'
import { benchPgDatabase } from './pg-db'
import { threadCpuMs } from './proc-cpu'
import { tempDbPath } from './util'

const CHUNK = 2000
export const DISPATCHERS = [1, 2, 4]
const root = new URL('..', import.meta.url).pathname

export interface PgDispatchOptions {
  serverUrl: string
  events: number
  rounds: number
  /** The receiver's URL, and when it got each request so far (ms since the epoch, in order). */
  target: string
  received: { at: number }[]
  /** The dispatchers' environment (LOG_LEVEL, in-flight caps, private targets allowed). */
  env: Record<string, string>
}

/** A measured round: deliveries/s from before the first commit and from it, the time to write the events, CPU per delivery (µs). */
export interface PgRound { rate: number; fromCommit: number; writeMs: number; dispatcherUs: number; serverUs: number; writerUs: number }

const now = () => performance.now() + performance.timeOrigin
const until = async (check: () => boolean | Promise<boolean>, ms = 120_000) => {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('bench timed out')
    await Bun.sleep(2)
  }
}

/** CPU (ms) of process `pid` from /proc: user + system, all its threads; 0 once it is gone. */
function procCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime, stime in USER_HZ ticks
  } catch {
    return 0
  }
}
const processesCpuMs = (pids: number[]) => pids.reduce((sum, pid) => {
  const c = threadCpuMs(pid)
  return sum + (c ? c.loop + c.http + c.other : 0)
}, 0)

/** Runs the rounds for 1, 2 and 4 dispatchers; answers them by number of dispatchers. */
export async function dispatchOnPostgres(o: PgDispatchOptions): Promise<Map<number, PgRound[]>> {
  const source = tempDbPath('dispatch-pg-source')
  const seeded = openDb(source)
  await seed(seeded, null, testSeed())
  seeded.$client.close()
  const pg = await benchPgDatabase(o.serverUrl, 'dispatch', source, 4)
  let procs: Bun.Subprocess[] = []
  try {
    // The webhook, through the api on PostgreSQL.
    const app = createApp({ db: pg.db as Db, config: loadConfig({ DATABASE_URL: pg.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }), log: createLogger('silent', 'bench'), metrics: createMetrics() })
    const made = await app.handle(new Request(`http://localhost/teams/${TEAM}/webhooks`, {
      method: 'POST', headers: { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'bench', provider: 'custom', target: o.target }),
    }))
    if (made.status !== 201) throw new Error(`webhook: ${made.status} ${await made.text()}`)
    const webhookId = ((await made.json()) as { id: string }).id
    const team = { id: TEAM, workspaceId: 'main', defaultLocale: 'en' }
    // Proofs of life (session advisory locks) in this database only: other databases on the server may have dispatchers too.
    const live = async () => (await pg.sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
      AND classid = ${OWNER_LOCK_SPACE}::oid AND objsubid = 2 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)[0].n as number
    const drained = async () => (await pg.sql`SELECT count(*)::int AS n FROM outbox WHERE status = 'pending' OR lease_token IS NOT NULL`)[0].n === 0
    const cpu = async () => {
      // The backends of the bench database: the dispatchers' (pools, proofs of life) and the bench's own (the event writes).
      const backends = [...await pg.sql`SELECT pid, application_name LIKE '%bench%' AS writer FROM pg_stat_activity WHERE datname = ${pg.name}`]
      const sum = (writer: boolean) => backends.filter((b) => b.writer === writer).reduce((n, b) => n + procCpuMs(b.pid), 0)
      return { dispatchers: processesCpuMs(procs.map((p) => p.pid)), server: sum(false), writer: sum(true) }
    }
    /** n events committed in transactions of CHUNK, each pipelined (each insertEvent's own statements stay in order). */
    const write = async (n: number, committed: () => void) => {
      for (let done = 0; done < n; done += CHUNK) {
        await pg.sql.begin((tx) => Promise.all(Array.from({ length: Math.min(CHUNK, n - done) }, () => {
          const p = samplePayload(team, 'content.published', 'u-editor')
          return insertEvent(tx, { eventId: p.eventId, teamId: TEAM, eventType: p.eventType, bytes: serialiseEvent(p), webhookIds: [webhookId], at: Date.now() })
        })))
        committed()
      }
    }

    const out = new Map<number, PgRound[]>()
    for (const k of DISPATCHERS) {
      procs = Array.from({ length: k }, () => Bun.spawn(['bun', 'dispatcher/main.ts'], {
        cwd: root, stdin: 'ignore', stdout: 'ignore', stderr: 'inherit', env: { ...process.env, ...o.env, DATABASE_URL: pg.url },
      }))
      await until(async () => (await live()) === k, 30_000)
      const rounds: PgRound[] = []
      for (let r = 0; r <= o.rounds; r++) {
        const n = r === 0 ? Math.min(o.events, CHUNK) : o.events
        const base = o.received.length
        const cpu0 = await cpu()
        const t0 = now()
        let t1 = 0
        await write(n, () => (t1 ||= now()))
        const writeMs = now() - t0
        await until(() => o.received.length >= base + n)
        const last = o.received.at(-1)!.at
        await until(drained)
        const cpu1 = await cpu()
        const us = (key: keyof typeof cpu0) => ((cpu1[key] - cpu0[key]) * 1000) / n
        if (r > 0) rounds.push({ rate: n / ((last - t0) / 1000), fromCommit: n / ((last - t1) / 1000), writeMs, dispatcherUs: us('dispatchers'), serverUs: us('server'), writerUs: us('writer') })
      }
      out.set(k, rounds)
      for (const p of procs) p.kill('SIGTERM')
      const codes = await Promise.all(procs.map((p) => p.exited))
      procs = []
      if (codes.some((c) => c !== 0)) throw new Error(`a dispatcher on PostgreSQL exited with ${codes.join(', ')} on SIGTERM`)
    }
    return out
  } finally {
    for (const p of procs) p.kill('SIGKILL')
    await Promise.all(procs.map((p) => p.exited))
    await pg.drop()
  }
}

/** The lines bench/dispatch.ts prints for the rounds of `k` dispatchers, beside SQLite's `sqliteRate`. */
export function pgLines(k: number, rounds: PgRound[], sqliteRate: number): string[] {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const f = (x: number) => x.toFixed(0)
  const rate = median(rounds.map((r) => r.rate))
  return [
    `  PostgreSQL, ${k} dispatcher${k > 1 ? 's' : ' '} (dispatcher/main.ts) ${f(rate).padStart(6)}/s  ${(rate / sqliteRate).toFixed(2)} x SQLite`
      + `  (from the first commit ${f(median(rounds.map((r) => r.fromCommit)))}/s; writing the events ${f(median(rounds.map((r) => r.writeMs)))} ms; rounds ${rounds.map((r) => f(r.rate)).join(', ')})`,
    `    CPU per delivery: dispatcher processes ${f(median(rounds.map((r) => r.dispatcherUs)))} µs, their PostgreSQL backends ${f(median(rounds.map((r) => r.serverUs)))} µs,`
      + ` the backends writing the events ${f(median(rounds.map((r) => r.writerUs)))} µs`,
  ]
}
