/**
 * Publish-to-receipt latency against its floors, in one run (issue 35 item 4; docs/benchmarks.md
 * "Publish to receipt"). The same api (in this process, as in bench/dispatch.ts), the same
 * receiver (in this process), the same publishes; what carries the event differs:
 *
 * 1. in-process: this process publishes, then POSTs the event's bytes to the receiver itself,
 *    the way a sender inside the publishing process does (Strapi): no outbox read, no second
 *    process, no lease. It loses the event when the process dies; it is the floor of any sender.
 * 2. outbox floor: bench/floor-dispatcher.ts with FLOOR_WAKE=1, a separate process woken by the
 *    api's real hint on commit (db/outbox/wake.ts): one lease UPDATE, one payload read, one POST.
 *    Nothing a real dispatcher needs beyond that (no target check, no signing key cache, no log):
 *    the floor of an outbox with a separate sender on this machine.
 * 3. real: dispatcher/main.ts at its defaults.
 *
 * Each publish is timed from the moment it is sent (`start`) and from its answer (`answer`) to the
 * receipt. Modes run in alternating blocks so the machine's load hits each alike.
 *   bun bench/latency-floor.ts [publishes per mode=300] [blocks=3]
 */
import { rmSync } from 'node:fs'
import { TEAM } from '../test/helpers'
import { benchApi } from './bench-api'

const PUBLISHES = Number(process.argv[2] ?? 300)
const BLOCKS = Number(process.argv[3] ?? 3)
const root = new URL('..', import.meta.url).pathname
const { dir, path, db, call } = await benchApi('content-latency-')

let receivedAt: number[] = []
const server = Bun.serve({
  port: 0, hostname: '127.0.0.1',
  async fetch(req) {
    const at = performance.now()
    await req.arrayBuffer()
    receivedAt.push(at)
    return new Response('ok')
  },
})
const target = `http://127.0.0.1:${server.port}/hook`
await call('POST', `/teams/${TEAM}/webhooks`, { label: 'bench', provider: 'custom', target })
await call('POST', `/content/${TEAM}`, { id: 'pages/bench', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'B', slug: 'bench' } } })
const payloadOf = db.$client.query<{ payload: string }, []>('SELECT payload FROM outbox_events ORDER BY rowid DESC LIMIT 1')

const env = { ...process.env, DATABASE_PATH: path, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }
const spawn = (script: string, extra: Record<string, string> = {}) =>
  Bun.spawn(['bun', script], { cwd: root, stdout: 'ignore', stderr: 'inherit', env: { ...env, ...extra } })
const stopped = async (p: ReturnType<typeof spawn>) => {
  p.kill('SIGTERM')
  await p.exited
}
const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('bench timed out')
    await Bun.sleep(0)
  }
}
const pending = db.$client.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM outbox WHERE status = 'pending'`)

type Mode = 'in-process' | 'outbox floor' | 'real'
const figures: Record<Mode, { start: number[]; answer: number[] }> = {
  'in-process': { start: [], answer: [] },
  'outbox floor': { start: [], answer: [] },
  real: { start: [], answer: [] },
}

/** `count` publishes of one document, each timed to its receipt; `sendSelf` posts the event from here. */
async function publishes(mode: Mode, count: number, sendSelf: boolean) {
  for (let i = 0; i < count; i++) {
    receivedAt = []
    const start = performance.now()
    await call('POST', `/content/publish/${TEAM}`, { ids: ['pages/bench'] })
    const answer = performance.now()
    if (sendSelf) {
      await fetch(target, { method: 'POST', body: payloadOf.get()!.payload, headers: { 'content-type': 'application/json' } })
    }
    await until(() => receivedAt.length > 0)
    figures[mode].start.push(receivedAt[0]! - start)
    figures[mode].answer.push(receivedAt[0]! - answer)
    await Bun.sleep(Math.random() * 20) // publishes land at random points of any poll cycle
  }
}

/** Runs `mode`'s sender (if any) for one block; the outbox is drained before and after, so no mode sees another's rows. */
async function block(mode: Mode, count: number) {
  if (mode === 'in-process') {
    // No dispatcher runs: the outbox rows the publishes write stay pending; mark them done so the next mode starts clean.
    await publishes(mode, count, true)
    db.$client.run(`UPDATE outbox SET status = 'delivered' WHERE status = 'pending'`)
    return
  }
  const p = mode === 'real' ? spawn('dispatcher/main.ts') : spawn('bench/floor-dispatcher.ts', { FLOOR_WAKE: '1' })
  // Started and listening; and past the api's 1 s cache of the dispatchers' ports (db/outbox/wake.ts),
  // which the block before read when none listened: until then its publishes would wait for a poll.
  await Bun.sleep(1100)
  await publishes(mode, 5, false) // warm-up, not counted
  for (const m of Object.values(figures[mode])) m.splice(-5)
  await publishes(mode, count, false)
  await until(() => pending.get()!.n === 0)
  await stopped(p)
}

const modes: Mode[] = ['in-process', 'outbox floor', 'real']
await publishes('in-process', 20, true) // JIT warm-up of this process's api
for (const m of Object.values(figures['in-process'])) m.length = 0
db.$client.run(`UPDATE outbox SET status = 'delivered' WHERE status = 'pending'`)
for (let b = 0; b < BLOCKS; b++) for (const mode of b % 2 ? [...modes].reverse() : modes) await block(mode, Math.ceil(PUBLISHES / BLOCKS))

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}
const f = (x: number) => x.toFixed(2)
console.log(`publish-to-receipt, ${PUBLISHES} publishes per mode in ${BLOCKS} alternating blocks (ms)`)
console.log('mode           from send: p50    p99  | from answer: p50    p99')
for (const mode of modes) {
  const { start, answer } = figures[mode]
  console.log(`${mode.padEnd(14)} ${f(pct(start, 50)).padStart(15)} ${f(pct(start, 99)).padStart(6)}  | ${f(pct(answer, 50)).padStart(16)} ${f(pct(answer, 99)).padStart(6)}`)
}
const ratio = (a: Mode, b: Mode, p: number) => (pct(figures[a].start, p) / pct(figures[b].start, p)).toFixed(2)
console.log(`real / outbox floor: p50 ${ratio('real', 'outbox floor', 50)}, p99 ${ratio('real', 'outbox floor', 99)}; outbox floor / in-process: p50 ${ratio('outbox floor', 'in-process', 50)}, p99 ${ratio('outbox floor', 'in-process', 99)}`)
server.stop(true)
db.$client.close()
rmSync(dir, { recursive: true, force: true })
