/**
 * Deliveries per second from a PostgreSQL outbox with 1, 2 and 4 dispatcher processes
 * (dispatcher/pg-outbox-runner.ts: the outbox half of the dispatcher, until core runs on
 * PostgreSQL), beside one SQLite dispatcher process (dispatcher/main.ts) timed the same way, in
 * the same run, to the same receiver (docs/postgresql.md "Figures: dispatchers on PostgreSQL as processes").
 *
 * Each round commits N events to one webhook (in transactions of CHUNK) and times from before the
 * first commit to the last request the receiver got; the round ends when every row is recorded.
 * The same event bytes (core's sample `content.published` payload) on both. One unmeasured round
 * per setup first (the JIT, the connections), then ROUNDS rounds; the median is printed.
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/postgres bun bench/dispatch-pg.ts [events=10000] [rounds=3] [inFlightPerWebhook=16] [receiverMs=0]
 * A database `bench_dispatch_<random>` is created on DATABASE_URL's server and dropped at the end.
 */
import { SQL } from 'bun'
import { join } from 'node:path'
import { readFileSync, rmSync } from 'node:fs'
import { openDb } from '../db/client'
import { pgClientOptions } from '../db/pg/client'
import { migratePg } from '../db/pg/migrate'
import { insertEvent } from '../db/pg/outbox/insert-event'
import { createApp } from '../api/app'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { enqueueEvent, serialiseEvent } from '../core/events/record'
import { samplePayload } from '../core/webhooks/deliveries'
import { seed } from '../cli/seed'
import { makeTestDir, testSeed, TEAM, TOKENS } from '../test/helpers'
import { withDatabase } from '../test/pg/harness'
import { liveOwners, spawnPgRunner, type PgRunner } from '../test/pg/runner'
import { threadCpuMs } from './proc-cpu'

const N = Number(process.argv[2] ?? 10_000)
const ROUNDS = Number(process.argv[3] ?? 3)
const PER_WEBHOOK = Number(process.argv[4] ?? 16)
const RECEIVER_MS = Number(process.argv[5] ?? 0)
const CHUNK = 2000
const DISPATCHERS = [1, 2, 4]
const root = new URL('..', import.meta.url).pathname
const serverUrl = process.env.DATABASE_URL || 'postgres://root@127.0.0.1:5432/postgres'
const team = { id: TEAM, workspaceId: 'main', defaultLocale: 'en' }
const dispatcherEnv = { LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DISPATCHER_PER_WEBHOOK: String(PER_WEBHOOK), DISPATCHER_CONCURRENCY: String(Math.max(64, PER_WEBHOOK)) }

const received: number[] = []
const server = Bun.serve({
  port: 0, hostname: '127.0.0.1',
  async fetch(req) {
    await req.text()
    received.push(performance.now() + performance.timeOrigin)
    if (RECEIVER_MS > 0) await Bun.sleep(RECEIVER_MS)
    return new Response('ok')
  },
})
const target = `http://127.0.0.1:${server.port}/hook`

const until = async (check: () => boolean | Promise<boolean>, ms = 120_000) => {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('bench timed out')
    await Bun.sleep(2)
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const now = () => performance.now() + performance.timeOrigin

/** A measured round: deliveries/s from before the first commit and from its end, the time to write the events, CPU per delivery (µs). */
interface Round { rate: number; fromCommit: number; writeMs: number; dispatcherUs: number; serverUs: number; writerUs: number }

/** CPU so far (ms) of the dispatcher processes, of the PostgreSQL backends serving them, and of those serving the bench's writes. */
interface Cpu { dispatchers: number; server: number; writer: number }

/** CPU (ms) of process `pid` from /proc: user + system, all its threads; 0 once it is gone. */
function procCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime, stime in USER_HZ ticks
  } catch {
    return 0
  }
}
const dispatchersCpu = (pids: number[]) => pids.reduce((sum, pid) => {
  const c = threadCpuMs(pid)
  return sum + (c ? c.loop + c.http + c.other : 0)
}, 0)

/**
 * One setup's rounds: `write(n, committed)` commits n events and calls `committed()` after its
 * first transaction; `drained()` says every row is recorded.
 */
async function rounds(write: (n: number, committed: () => void) => Promise<void>, drained: () => Promise<boolean>, cpu: () => Promise<Cpu>): Promise<Round[]> {
  const out: Round[] = []
  for (let r = 0; r <= ROUNDS; r++) {
    const n = r === 0 ? Math.min(N, 2000) : N
    const base = received.length
    const cpu0 = await cpu()
    const t0 = now()
    let t1 = 0
    await write(n, () => (t1 ||= now()))
    const writeMs = now() - t0
    await until(() => received.length >= base + n)
    const last = received.at(-1)!
    await until(drained)
    const cpu1 = await cpu()
    const us = (k: keyof Cpu) => ((cpu1[k] - cpu0[k]) * 1000) / n
    if (r > 0) out.push({ rate: n / ((last - t0) / 1000), fromCommit: n / ((last - t1) / 1000), writeMs, dispatcherUs: us('dispatchers'), serverUs: us('server'), writerUs: us('writer') })
  }
  return out
}

// SQLite: one real dispatcher process on a seeded file, the webhook made through the api.
const dir = makeTestDir('content-bench-pg-')
const path = join(dir, 'content.db')
const db = openDb(path)
await seed(db, null, testSeed())
const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }), log: createLogger('silent', 'bench'), metrics: createMetrics() })
await app.handle(new Request(`http://localhost/teams/${TEAM}/webhooks`, {
  method: 'POST', headers: { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'application/json' },
  body: JSON.stringify({ label: 'bench', provider: 'custom', target }),
}))
const [webhookId] = db.$client.query<{ id: string }, []>('SELECT id FROM webhooks').all().map((w) => w.id)
const { DATABASE_URL: _, ...envWithoutUrl } = process.env
const sqliteDispatcher = Bun.spawn(['bun', 'dispatcher/main.ts'], { cwd: root, stdout: 'ignore', stderr: 'inherit', env: { ...envWithoutUrl, ...dispatcherEnv, DATABASE_PATH: path } })
const sqliteUnfinished = db.$client.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM outbox WHERE status = 'pending' OR lease_token IS NOT NULL`)

// PostgreSQL: a fresh database with the same team, webhook and receiver.
const name = `bench_dispatch_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
const admin = new SQL(pgClientOptions(serverUrl, { processName: 'bench', poolSize: 1 }))
await admin.unsafe(`CREATE DATABASE ${name}`)
const url = withDatabase(serverUrl, name)
await migratePg(url, { processName: 'bench' })
const sql = new SQL(pgClientOptions(url, { processName: 'bench', poolSize: 4 }))
await sql`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES (${TEAM}, 'main', '["en"]'::json, 'en', '2026-01-01T00:00:00.0000000Z')`
await sql`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, created_at, updated_at)
  VALUES (${webhookId!}, ${TEAM}, 'bench', 'custom', ${target}, '["content.published"]'::json, 'whsec', 'now', 'now')`
let runners: PgRunner[] = []

try {
  const sqliteRates = await rounds(async (n, committed) => {
    for (let done = 0; done < n; done += CHUNK) {
      await db.transaction(async (tx) => {
        for (let i = done; i < Math.min(n, done + CHUNK); i++) await enqueueEvent(tx, samplePayload(team, 'content.published', 'u-editor'))
      }, { behavior: 'immediate' })
      committed()
    }
  }, async () => sqliteUnfinished.get()!.n === 0, async () => ({ dispatchers: dispatchersCpu([sqliteDispatcher.pid]), server: 0, writer: 0 }))
  sqliteDispatcher.kill('SIGTERM')
  await sqliteDispatcher.exited

  const pgRates = new Map<number, Round[]>()
  for (const k of DISPATCHERS) {
    runners = Array.from({ length: k }, () => spawnPgRunner(url, dispatcherEnv))
    await until(async () => (await liveOwners(sql)) === k, 30_000)
    pgRates.set(k, await rounds(async (n, committed) => {
      for (let done = 0; done < n; done += CHUNK) {
        // The events of one transaction pipelined (each insertEvent's own statements stay in order).
        await sql.begin((tx) => Promise.all(Array.from({ length: Math.min(CHUNK, n - done) }, () => {
          const p = samplePayload(team, 'content.published', 'u-editor')
          return insertEvent(tx, { eventId: p.eventId, teamId: TEAM, eventType: p.eventType, bytes: serialiseEvent(p), webhookIds: [webhookId!], at: Date.now() })
        })))
        committed()
      }
    }, async () => (await sql`SELECT count(*)::int AS n FROM outbox WHERE status = 'pending' OR lease_token IS NOT NULL`)[0].n === 0, async () => {
      // The backends of the bench database: the runners' (pools, proofs of life) and the bench's own (the event writes).
      const backends = [...await sql`SELECT pid, application_name LIKE '%bench%' AS writer FROM pg_stat_activity WHERE datname = ${name}`]
      const sum = (writer: boolean) => backends.filter((b) => b.writer === writer).reduce((n, b) => n + procCpuMs(b.pid), 0)
      return { dispatchers: dispatchersCpu(runners.map((r) => r.proc.pid)), server: sum(false), writer: sum(true) }
    }))
    for (const r of runners) r.proc.kill('SIGTERM')
    await Promise.all(runners.map((r) => r.proc.exited))
    runners = []
  }

  const f = (x: number) => x.toFixed(0)
  const line = (label: string, rs: Round[], vs?: number) => {
    const rate = median(rs.map((r) => r.rate))
    console.log(`  ${label.padEnd(44)} ${f(rate).padStart(6)}/s${vs ? `  ${(rate / vs).toFixed(2)} x SQLite` : '              '}`
      + `  (from the first commit ${f(median(rs.map((r) => r.fromCommit)))}/s; writing the events ${f(median(rs.map((r) => r.writeMs)))} ms; rounds ${rs.map((r) => f(r.rate)).join(', ')})`)
    console.log(`  ${''.padEnd(44)} CPU per delivery: dispatcher process${vs ? 'es' : ''} ${f(median(rs.map((r) => r.dispatcherUs)))} µs${vs ? `, their PostgreSQL backends ${f(median(rs.map((r) => r.serverUs)))} µs, the backends writing the events ${f(median(rs.map((r) => r.writerUs)))} µs` : ''}`)
    return rate
  }
  console.log(`deliveries per second: ${N} events per round to one webhook, from before the first commit to the last receipt, median of ${ROUNDS} rounds; ${PER_WEBHOOK} in flight per process, receiver ${RECEIVER_MS} ms`)
  const sqliteRate = line('SQLite, 1 dispatcher (dispatcher/main.ts)', sqliteRates)
  for (const [k, rs] of pgRates) line(`PostgreSQL, ${k} runner${k > 1 ? 's' : ''} (pg-outbox-runner.ts)`, rs, sqliteRate)
} finally {
  await Promise.all(runners.map((r) => r.cleanup()))
  sqliteDispatcher.kill('SIGKILL')
  await sql.close()
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.close()
  server.stop(true)
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
}
