/**
 * Delivery log latency (`GET /teams/{teamId}/webhooks/{id}/deliveries`, the newest 50 with their
 * attempts) through the real app, for a quiet webhook (20 deliveries) and a busy one, first with
 * nothing else in the log (baseline), then with `rows` more deliveries of the busy webhook, each
 * with one attempt, all delivered. The ratio says whether a log read grows with everyone's history.
 * `failed` is the busy webhook's `?status=failed` page (no failure among its deliveries).
 * Then it deletes the busy webhook through the api (`DELETE`, in steps) and, as the baseline, a
 * second webhook with as many deliveries in one transaction (how the api deleted before), while
 * another process writes every 2 ms and times its wait for the write lock (bench/lock-writer.ts).
 *
 *   bun bench/delivery-log.ts [rows=200000] [requests=300]
 */
import { openDb, type SqliteDb as Db } from '../db/client'
import { createApp } from '../api/app'
import { loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { seed } from '../cli/seed'
import { rmSync } from 'node:fs'
import { deleteWebhookNow } from '../core/webhooks/service'
import { fmt, summarize, tempDbPath } from './util'

const ROWS = Number(process.argv[2] ?? 200_000)
const REQUESTS = Number(process.argv[3] ?? 300)
const path = tempDbPath('delivery-log')
const db = openDb(path)
await seed(db, null, {
  teams: [{
    id: 't', workspaceId: 'w', locales: ['en'], defaultLocale: 'en',
    contentTypes: [{ name: 'page', collection: 'pages', fields: [{ name: 'title', localizable: true }] }],
    users: [{ id: 'u', token: 'bench-token-1', capabilities: ['ManageWebhooks'] }],
  }],
})
const app = createApp({ db, config: loadConfig({ DATABASE_PATH: path }), log: createLogger('silent', 'bench'), metrics: createMetrics() })
const headers = { authorization: 'Bearer bench-token-1', 'content-type': 'application/json' }
const hook = async (label: string) =>
  ((await (await app.handle(new Request('http://localhost/teams/t/webhooks', { method: 'POST', headers, body: JSON.stringify({ label, provider: 'custom', target: 'https://example.com/hook' }) }))).json()) as { id: string }).id
const quiet = await hook('quiet')
const busy = await hook('busy')

let n = 0
/** `count` delivered deliveries of `webhookId`, one attempt each, written straight into the file. */
function fill(d: Db, webhookId: string, count: number) {
  const c = d.$client
  const event = c.query('INSERT INTO outbox_events (event_id, payload) VALUES (?, ?)')
  const row = c.query(`INSERT INTO outbox (event_id, webhook_id, team_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
    VALUES (?1, ?2, 't', 'content.published', 'delivered', 1, ?3, ?3, ?3) RETURNING seq`)
  const attempt = c.query(`INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body)
    VALUES (?, ?, ?, 1, 'scheduled', ?, 200, NULL, 3, 'ok')`)
  c.transaction(() => {
    for (let i = 0; i < count; i++) {
      const id = `ev-${n++}`
      event.run(id, '{"v":2}')
      const { seq } = row.get(id, webhookId, Date.now()) as { seq: number }
      attempt.run(seq, webhookId, id, Date.now())
    }
  })()
}

async function measure(webhookId: string, query = '') {
  const url = `http://localhost/teams/t/webhooks/${webhookId}/deliveries${query}`
  for (let i = 0; i < 20; i++) await (await app.handle(new Request(url, { headers }))).text() // warm up
  const samples: number[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now()
    const res = await app.handle(new Request(url, { headers }))
    await res.text()
    samples.push(performance.now() - t)
  }
  return summarize(samples)
}

fill(db, quiet, 20)
fill(db, busy, 60)
const base = { quiet: await measure(quiet), busy: await measure(busy), failed: await measure(busy, '?status=failed') }
let t0 = performance.now()
fill(db, busy, ROWS)
console.log(`wrote ${ROWS} more deliveries of the busy webhook in ${fmt((performance.now() - t0) / 1000, 1)} s`)
const big = { quiet: await measure(quiet), busy: await measure(busy), failed: await measure(busy, '?status=failed') }
for (const which of ['quiet', 'busy', 'failed'] as const) {
  console.log(`${which} webhook log: p50 ${fmt(base[which].p50)} ms -> ${fmt(big[which].p50)} ms with ${ROWS} more rows (ratio ${fmt(big[which].p50 / base[which].p50)}), p99 ${fmt(base[which].p99)} -> ${fmt(big[which].p99)} ms`)
}

/** Runs `work` while another process writes every 2 ms; answers that writer's lock waits and how long `work` took. */
async function withWriter(work: () => Promise<void>) {
  const stop = `${path}.stop`
  const writer = Bun.spawn(['bun', new URL('./lock-writer.ts', import.meta.url).pathname, path, stop], { stdout: 'pipe', stderr: 'pipe' })
  const reader = writer.stderr.getReader()
  await reader.read() // 'ready'
  await Bun.sleep(50)
  const t = performance.now()
  await work()
  const ms = performance.now() - t
  await Bun.sleep(50)
  await Bun.write(stop, '')
  const waits = JSON.parse(await new Response(writer.stdout).text()) as { n: number; p50: number; p99: number; max: number }
  await writer.exited
  rmSync(stop)
  return { ms, waits }
}
const other = await hook('baseline')
fill(db, other, ROWS + 60)
const gone = await withWriter(async () => {
  const res = await app.handle(new Request(`http://localhost/teams/t/webhooks/${busy}`, { method: 'DELETE', headers }))
  if (res.status !== 204) throw new Error(`DELETE answered ${res.status}`)
})
const baseline = await withWriter(async () => await deleteWebhookNow(db, other))
for (const [name, r] of [['one transaction (baseline)', baseline], ['DELETE, in steps', gone]] as const) {
  console.log(`delete a webhook with ${ROWS + 60} deliveries, ${name}: ${fmt(r.ms, 0)} ms; another process's writes meanwhile (${r.waits.n}) waited p50 ${fmt(r.waits.p50)} ms, p99 ${fmt(r.waits.p99)} ms, max ${fmt(r.waits.max)} ms`)
}
console.log(`longest wait of the other writer, steps / one transaction: ${fmt(gone.waits.max / baseline.waits.max, 3)}`)
db.$client.close()
