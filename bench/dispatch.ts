/**
 * Webhook dispatch figures, all in one run (docs/dispatcher.md "Figures"):
 * 1. CPU per delivery of the REAL dispatcher process (dispatcher/main.ts) and of the floor
 *    (bench/floor-dispatcher.ts: the least a leased, logged delivery can do), and their ratio
 *    (goal <= 1.3). Both run against the same database, receiver and events, in alternating
 *    rounds (the other one paused with SIGSTOP), so the machine's load hits both alike. CPU is
 *    read from /proc (Linux) from before the events commit until every row is recorded, split
 *    into the event loop, Bun's HTTP client thread and the rest (checkpoint worker, GC, JIT).
 *    Deliveries per second are printed too, but on a shared machine CPU is the steadier figure.
 *    A first round of each warms the JIT and is not counted.
 * 2. publish-to-receipt latency p50/p99 through the api, with the real dispatcher at its default
 *    poll interval.
 *   bun bench/dispatch.ts [deliveries=10000] [publishes=200] [inFlightPerWebhook=16] [receiverMs=0] [rounds=3]
 * BENCH_BARE=1 adds a bare loop of fetch POSTs per round (bench/bare-fetch.ts: same body and
 * headers, no outbox at all); BENCH_PROFILE=<dir> writes the real dispatcher's CPU profile there.
 * 3. With DATABASE_URL set: deliveries per second with 1, 2 and 4 real dispatcher processes on a
 *    fresh PostgreSQL database on that server, to the same receiver, timed as the SQLite rounds
 *    (bench/dispatch-pg.ts), beside the SQLite dispatcher's rate of 1.
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/postgres bun bench/dispatch.ts [deliveries] [publishes] [inFlightPerWebhook] [receiverMs] [rounds]
 */
import { join } from 'node:path'
import { rmSync } from 'node:fs'
import { writeLockFreeNow } from '../db/client'
import { enqueueEvent } from '../core/events/record'
import { samplePayload } from '../core/webhooks/deliveries'
import { TEAM } from '../test/helpers'
import { benchApi } from './bench-api'
import { cpuByThreadName, perItemUs, threadCpuMs, type ThreadCpu } from './proc-cpu'
import { dispatchOnPostgres, pgLines } from './dispatch-pg'
import { BENCH_DATABASE_URL } from './pg-db'
import { maskUrl } from '../db/pg/url'

const N = Number(process.argv[2] ?? 10_000)
const PUBLISHES = Number(process.argv[3] ?? 200)
// The dispatcher's per-webhook in-flight cap (DISPATCHER_PER_WEBHOOK, default 16); the floor gets the same.
const PER_WEBHOOK = Number(process.argv[4] ?? 16)
// Receiver think time per request: 0 is a no-op receiver (pure overhead); real receivers take ms.
const RECEIVER_MS = Number(process.argv[5] ?? 0)
const ROUNDS = Number(process.argv[6] ?? 3)
/** Events per enqueue transaction: the floor waits at most its busy timeout (5 s) for the lock. */
const CHUNK = 2000
const root = new URL('..', import.meta.url).pathname
const { dir, path, db, call } = await benchApi('content-bench-')

const received: { at: number; body: string }[] = []
// The headers of the dispatcher's first request, replayed by the bare loop (same request size).
let dispatcherHeaders: Record<string, string> | null = null
const server = Bun.serve({
  port: 0, hostname: '127.0.0.1',
  async fetch(req) {
    dispatcherHeaders ??= Object.fromEntries(req.headers)
    received.push({ at: performance.now() + performance.timeOrigin, body: await req.text() })
    if (RECEIVER_MS > 0) await Bun.sleep(RECEIVER_MS)
    return new Response('ok')
  },
})
const target = `http://127.0.0.1:${server.port}/hook`
await call('POST', `/teams/${TEAM}/webhooks`, { label: 'bench', provider: 'custom', target })

const dispatcherEnv = { LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DISPATCHER_PER_WEBHOOK: String(PER_WEBHOOK), DISPATCHER_CONCURRENCY: String(Math.max(64, PER_WEBHOOK)) }
// The SQLite processes never see DATABASE_URL (it would put them on PostgreSQL).
const { DATABASE_URL: _, ...envWithoutUrl } = process.env
const env = { ...envWithoutUrl, DATABASE_PATH: path, ...dispatcherEnv }
const spawn = (script: string, profile?: string) =>
  Bun.spawn(['bun', ...(profile ? ['--cpu-prof', '--cpu-prof-dir=' + profile] : []), script], { cwd: root, stdout: 'ignore', stderr: 'inherit', env })
const real = spawn('dispatcher/main.ts', process.env.BENCH_PROFILE)
const floor = spawn('bench/floor-dispatcher.ts')
const until = async (check: () => boolean, ms = 120_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('bench timed out')
    await Bun.sleep(1)
  }
}
const unfinished = db.$client.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM outbox WHERE status = 'pending' OR lease_token IS NOT NULL`)
/**
 * Only `p` runs: the other is paused (SIGSTOP), so it neither claims nor takes CPU. A process
 * paused inside a write transaction (the floor leases every 10 ms, idle or not) would hold the
 * write lock for the whole round: it is let go on and paused again until it holds none.
 */
async function only(p: typeof real) {
  for (;;) {
    for (const q of [real, floor]) q.kill(q === p ? 'SIGCONT' : 'SIGSTOP')
    await Bun.sleep(1)
    if (writeLockFreeNow(db)) return
    for (const q of [real, floor]) q.kill('SIGCONT')
    await Bun.sleep(3)
  }
}

interface Round { rate: number; cpu: ThreadCpu | null }
/** One round for `p`: N events committed, drained to the receiver and recorded. */
async function round(p: typeof real): Promise<Round> {
  await only(p)
  await Bun.sleep(50)
  const base = received.length
  const team = { id: TEAM, workspaceId: 'main', defaultLocale: 'en' }
  const cpu0 = threadCpuMs(p.pid)
  const threads0 = cpuByThreadName(p.pid)
  const t0 = performance.now() + performance.timeOrigin
  for (let done = 0; done < N; done += CHUNK) {
    // IMMEDIATE, as the api's writes: a deferred transaction reads first, and a dispatcher that
    // commits before its first insert makes that insert fail at once (SQLITE_BUSY, stale snapshot).
    await db.transaction(async (tx) => {
      for (let i = done; i < Math.min(N, done + CHUNK); i++) await enqueueEvent(tx, samplePayload(team, 'content.published', 'u-editor'))
    }, { behavior: 'immediate' })
  }
  await until(() => received.length >= base + N)
  const rate = N / ((received.at(-1)!.at - t0) / 1000)
  await until(() => unfinished.get()!.n === 0)
  const cpu1 = threadCpuMs(p.pid)
  if (process.env.BENCH_THREADS) {
    const threads = Object.entries(cpuByThreadName(p.pid)).map(([name, ms]) => `${name} ${(((ms - (threads0[name] ?? 0)) * 1000) / N).toFixed(1)}`)
    console.log(`  ${p === real ? 'real' : 'floor'} µs per delivery by thread: ${threads.join(', ')}`)
  }
  return { rate, cpu: perItemUs(cpu0, cpu1, N) }
}

try {
  // Warm up both processes and their connections.
  for (const p of [real, floor]) {
    await only(p)
    const before = received.length
    await call('POST', `/content/publish/${TEAM}`, { ids: ['pages/home'] })
    await until(() => received.length > before)
    await until(() => unfinished.get()!.n === 0)
  }

  // A first round each, not counted: it is mostly the JIT compiling (the real dispatcher has far
  // more code to compile than the floor), a cost paid once per process, not per delivery.
  await round(real)
  await round(floor)

  // 1. CPU per delivery, alternating which goes first so a drift in load hits both alike.
  const rounds: { real: Round; floor: Round; bare: number | null }[] = []
  for (let i = 0; i < ROUNDS; i++) {
    let r: { real: Round; floor: Round }
    if (i % 2 === 0) r = { real: await round(real), floor: await round(floor) }
    else {
      const f = await round(floor)
      r = { real: await round(real), floor: f }
    }
    rounds.push({ ...r, bare: process.env.BENCH_BARE ? await bareRate() : null })
  }

  // 2. Publish-to-receipt latency through the api, the real dispatcher alone.
  await only(real)
  const latencies: number[] = []
  const fromAnswer: number[] = [] // the issue's and Strapi's measure: from the publish answer to receipt
  await call('POST', `/content/${TEAM}`, { id: 'pages/bench', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'B', slug: 'bench' } } })
  for (let i = 0; i < PUBLISHES; i++) {
    const before = received.length
    const start = performance.now() + performance.timeOrigin
    await call('POST', `/content/publish/${TEAM}`, { ids: ['pages/bench'] })
    const answer = performance.now() + performance.timeOrigin
    await until(() => received.length > before, 10_000)
    latencies.push(received[before]!.at - start)
    fromAnswer.push(received[before]!.at - answer)
    await Bun.sleep(Math.random() * 20) // publishes land at random points of the poll cycle
  }
  latencies.sort((a, b) => a - b)
  fromAnswer.sort((a, b) => a - b)
  const pct = (p: number, xs = latencies) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!
  const f = (x: number) => x.toFixed(1)
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const total = (c: ThreadCpu | null) => (c ? c.loop + c.http + c.other : NaN)
  const cpu = (c: ThreadCpu | null) => (c ? `${f(total(c))} µs = loop ${f(c.loop)} + http ${f(c.http)} + other ${f(c.other)}` : 'n/a')
  for (const [i, r] of rounds.entries()) {
    console.log(`round ${i + 1}: real ${cpu(r.real.cpu)}, ${f(r.real.rate)}/s`)
    console.log(`         floor ${cpu(r.floor.cpu)}, ${f(r.floor.rate)}/s; ratio ${(total(r.real.cpu) / total(r.floor.cpu)).toFixed(2)}${r.bare === null ? '' : `; bare fetch loop ${f(r.bare)}/s`}`)
  }
  const realUs = median(rounds.map((r) => total(r.real.cpu)))
  const floorUs = median(rounds.map((r) => total(r.floor.cpu)))
  console.log(`CPU per delivery, real dispatcher:  ${f(realUs)} µs median  (${N} events per round, ${ROUNDS} rounds, ${PER_WEBHOOK} in flight per webhook, LOG_LEVEL=warn, receiver ${RECEIVER_MS} ms)`)
  console.log(`  claim with lease + SSRF check at send + sign + send with timeout + fairness queues + classify + batched state and attempt rows + checkpoints`)
  console.log(`CPU per delivery, floor:            ${f(floorUs)} µs median  (bench/floor-dispatcher.ts: lease, send, state and attempt rows; nothing else)`)
  console.log(`ratio real / floor:                 ${(realUs / floorUs).toFixed(2)} (median of each; per round ${rounds.map((r) => (total(r.real.cpu) / total(r.floor.cpu)).toFixed(2)).join(', ')}; goal <= 1.3)`)
  console.log(`deliveries per second:              real ${f(median(rounds.map((r) => r.real.rate)))}, floor ${f(median(rounds.map((r) => r.floor.rate)))} median`)
  console.log(`publish-to-receipt latency:         p50 ${f(pct(50))} ms, p99 ${f(pct(99))} ms over ${PUBLISHES} publishes, from sending the publish`)
  console.log(`                                    p50 ${f(pct(50, fromAnswer))} ms, p99 ${f(pct(99, fromAnswer))} ms from its answer (goal p50 <= 2, p99 <= 10; bench/latency-floor.ts gives the floors)`)

  // 3. PostgreSQL, the SQLite processes stopped first (they would take CPU polling).
  if (BENCH_DATABASE_URL) {
    await stopSqlite()
    const sqliteRate = median(rounds.map((r) => r.real.rate))
    const pg = await dispatchOnPostgres({ serverUrl: BENCH_DATABASE_URL, events: N, rounds: ROUNDS, target, received, env: dispatcherEnv })
    console.log(`deliveries per second on PostgreSQL (${maskUrl(BENCH_DATABASE_URL)}), ${N} events per round, from before the first commit to the last receipt, median of ${ROUNDS} rounds:`)
    console.log(`  SQLite, 1 dispatcher (the real rounds above)  ${f(sqliteRate).padStart(8)}/s`)
    for (const [k, rs] of pg) for (const line of pgLines(k, rs, sqliteRate)) console.log(line)
  }
} finally {
  await stopSqlite()
  server.stop(true)
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
}

/** Ends the SQLite dispatcher and the floor (once). */
async function stopSqlite() {
  for (const p of [real, floor]) {
    p.kill('SIGCONT')
    p.kill('SIGTERM')
    await p.exited
  }
}

/** A bare loop of N fetch POSTs with the dispatcher's body and headers, both dispatchers paused. */
async function bareRate(): Promise<number> {
  for (const p of [real, floor]) p.kill('SIGSTOP')
  const own = ['content-type', 'user-agent', 'x-service-event', 'x-service-delivery', 'x-service-signature']
  const bodyFile = join(dir, 'body.json')
  const headersFile = join(dir, 'headers.json')
  await Bun.write(bodyFile, received.at(-1)!.body)
  await Bun.write(headersFile, JSON.stringify(Object.fromEntries(Object.entries(dispatcherHeaders!).filter(([k]) => own.includes(k)))))
  const bare = Bun.spawn(['bun', 'bench/bare-fetch.ts', target, String(N), String(PER_WEBHOOK), bodyFile, headersFile], { cwd: root, stdout: 'pipe' })
  const { rate } = JSON.parse(await new Response(bare.stdout).text()) as { rate: number }
  await bare.exited
  return rate
}
