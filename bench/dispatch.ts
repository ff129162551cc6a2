/**
 * Webhook dispatch figures, all in one run (docs/benchmarks.md#dispatch):
 * 1. signed deliveries per second from the outbox to a local receiver, by the REAL dispatcher
 *    process, vs a bare loop of fetch POSTs (own process, same concurrency, same receiver, the
 *    same body and the same header set, the signature header sent as a fixed string);
 *    the ratio's goal is >= 0.7;
 * 2. publish-to-receipt latency p50/p99 through the api (goal p99 < 100 ms), with the
 *    dispatcher at its default poll interval (it wakes on `PRAGMA data_version`).
 *   bun bench/dispatch.ts [deliveries=5000] [publishes=200] [inFlightPerWebhook=16] [receiverMs=0] [rounds=3]
 * Each throughput round also prints CPU per delivery of the dispatcher process and per request of
 * the bare loop (from /proc, Linux), split into the event loop, Bun's HTTP client thread and the
 * rest: on a machine shared with other work that is the steadier figure, and it shows where the
 * difference lies.
 * BENCH_DISPATCHER=<script> runs another dispatcher process in place of dispatcher/main.ts (such
 * as bench/floor-dispatcher.ts, the least work a leased, logged delivery can do); BENCH_PROFILE=<dir>
 * writes the dispatcher's CPU profile there.
 */
import { join } from 'node:path'
import { readFileSync, rmSync } from 'node:fs'
import { openDb } from '../db/client'
import { createApp } from '../api/app'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { seed } from '../cli/seed'
import { enqueueEvent } from '../core/events/record'
import { samplePayload } from '../core/webhooks/deliveries'
import { makeTestDir, testSeed, TEAM, TOKENS } from '../test/helpers'
import { perItemUs, threadCpuMs, type ThreadCpu } from './proc-cpu'

const N = Number(process.argv[2] ?? 5000)
const PUBLISHES = Number(process.argv[3] ?? 200)
// The dispatcher's per-webhook in-flight cap (DISPATCHER_PER_WEBHOOK, default 16); the bare loop gets the same.
const PER_WEBHOOK = Number(process.argv[4] ?? 16)
// Receiver think time per request: 0 is a no-op receiver (pure overhead); real receivers take ms.
const RECEIVER_MS = Number(process.argv[5] ?? 0)
const ROUNDS = Number(process.argv[6] ?? 3)
const root = new URL('..', import.meta.url).pathname
const dir = makeTestDir('content-bench-')
const path = join(dir, 'content.db')
const db = openDb(path)
seed(db, null, testSeed())
const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }), log: createLogger('silent', 'bench'), metrics: createMetrics() })

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
const call = async (method: string, url: string, body: unknown) => {
  const res = await app.handle(new Request(`http://localhost${url}`, { method, headers: { authorization: `Bearer ${TOKENS.editor}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  return res.json() as Promise<any>
}
await call('POST', `/teams/${TEAM}/webhooks`, { label: 'bench', provider: 'custom', target })

const DISPATCHER = process.env.BENCH_DISPATCHER ?? 'dispatcher/main.ts'
const dispatcher = Bun.spawn(['bun', ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROFILE] : []), DISPATCHER], {
  cwd: root, stdout: 'ignore', stderr: 'inherit',
  env: { ...process.env, DATABASE_PATH: path, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DISPATCHER_PER_WEBHOOK: String(PER_WEBHOOK), DISPATCHER_CONCURRENCY: String(Math.max(64, PER_WEBHOOK)) },
})
const until = async (check: () => boolean, ms = 120_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('bench timed out')
    await Bun.sleep(1)
  }
}

try {
  // Warm up the process and the connection.
  await call('POST', `/content/publish/${TEAM}`, { ids: ['pages/home'] })
  await until(() => received.length >= 1)

  // 1. Throughput from the outbox, in ROUNDS rounds (each: the dispatcher drains N events, then a
  // fresh bare loop sends N); the median ratio is the figure, the rounds show the spread.
  const team = { id: TEAM, workspaceId: 'main', defaultLocale: 'en' }
  const own = ['content-type', 'user-agent', 'x-service-event', 'x-service-delivery', 'x-service-signature']
  const bodyFile = join(dir, 'body.json')
  const headersFile = join(dir, 'headers.json')
  const rounds: { dispatchRate: number; bareRate: number; dispatchCpuUs: ThreadCpu | null; bareCpuUs: ThreadCpu | null }[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const base = received.length
    db.transaction((tx) => {
      for (let i = 0; i < N; i++) enqueueEvent(tx, samplePayload(team, 'content.published', 'u-editor'))
    })
    // From the commit: the rate of draining the outbox, not of filling it.
    const t0 = performance.now() + performance.timeOrigin
    const cpu0 = threadCpuMs(dispatcher.pid)
    await until(() => received.length >= base + N)
    const dispatchRate = N / ((received.at(-1)!.at - t0) / 1000)
    const cpu1 = threadCpuMs(dispatcher.pid)
    await Bun.write(bodyFile, received.at(-1)!.body)
    // What fetch sets itself (host, length, connection, accept...) it sets on both sides alike.
    await Bun.write(headersFile, JSON.stringify(Object.fromEntries(Object.entries(dispatcherHeaders!).filter(([k]) => own.includes(k)))))
    const bare = Bun.spawn(['bun', 'bench/bare-fetch.ts', target, String(N), String(PER_WEBHOOK), bodyFile, headersFile], { cwd: root, stdout: 'pipe' })
    const { rate: bareRate, cpuUs: bareCpuUs } = JSON.parse(await new Response(bare.stdout).text()) as { rate: number; cpuUs: ThreadCpu | null }
    await bare.exited
    rounds.push({ dispatchRate, bareRate, dispatchCpuUs: perItemUs(cpu0, cpu1, N), bareCpuUs })
    await Bun.sleep(200) // let the dispatcher's checkpoint settle between rounds
  }

  // 2. Publish-to-receipt latency through the api.
  const latencies: number[] = []
  await call('POST', `/content/${TEAM}`, { id: 'pages/bench', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'B', slug: 'bench' } } })
  for (let i = 0; i < PUBLISHES; i++) {
    const before = received.length
    const start = performance.now() + performance.timeOrigin
    await call('POST', `/content/publish/${TEAM}`, { ids: ['pages/bench'] })
    await until(() => received.length > before, 10_000)
    latencies.push(received[before]!.at - start)
    await Bun.sleep(Math.random() * 20) // publishes land at random points of the poll cycle
  }
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!
  const f = (x: number) => x.toFixed(1)
  const bytes = received.at(-1)!.body.length
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const cpu = (c: ThreadCpu | null) => (c ? `${f(c.loop + c.http + c.other)} µs = loop ${f(c.loop)} + http ${f(c.http)} + other ${f(c.other)}` : 'n/a')
  for (const [i, r] of rounds.entries()) {
    console.log(`round ${i + 1}: dispatcher ${f(r.dispatchRate)}/s, bare loop ${f(r.bareRate)}/s, ratio ${(r.dispatchRate / r.bareRate).toFixed(2)}`)
    console.log(`  CPU per delivery ${cpu(r.dispatchCpuUs)}; per bare request ${cpu(r.bareCpuUs)}`)
  }
  console.log(`signed deliveries from the outbox:  ${f(median(rounds.map((r) => r.dispatchRate)))}/s median  (${N} events per round, ${ROUNDS} rounds, ${DISPATCHER === 'dispatcher/main.ts' ? 'real dispatcher process' : DISPATCHER + ' in its place'}, ${PER_WEBHOOK} in flight per webhook, LOG_LEVEL=warn, receiver ${RECEIVER_MS} ms)`)
  console.log(`  claim with lease + sign + SSRF syntax check (private targets allowed: no DNS) + send + classify + attempt row, from commit to last receipt`)
  console.log(`bare fetch POST loop, same receiver: ${f(median(rounds.map((r) => r.bareRate)))}/s median  (own process, ${PER_WEBHOOK} in flight, the same ${bytes}-byte body and ${own.length} headers, keep-alive fetch)`)
  console.log(`ratio dispatcher / bare loop:        ${median(rounds.map((r) => r.dispatchRate / r.bareRate)).toFixed(2)} median  (goal >= 0.7)`)
  console.log(`publish-to-receipt latency:          p50 ${f(pct(50))} ms, p99 ${f(pct(99))} ms over ${PUBLISHES} publishes (goal p99 < 100 ms)`)
} finally {
  dispatcher.kill('SIGTERM')
  await dispatcher.exited
  server.stop(true)
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
}
