/**
 * A floor for bench/dispatch.ts, not a dispatcher to run: the least a dispatcher can do per
 * delivery and still be at least once with a delivery log. One webhook, no send-time target
 * check, no timeout signal, no fairness queues, no retries, no checkpoints, no logging: claim a
 * batch under a lease (one UPDATE ... RETURNING), read the payloads, send `perWebhook` at a
 * time, and record each answer (state UPDATE + attempt INSERT) in batches of 64.
 * bench/dispatch.ts runs it next to the real dispatcher (docs/dispatcher.md "Figures").
 */
import { Database } from 'bun:sqlite'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'

const db = new Database(process.env.DATABASE_PATH!)
db.run('PRAGMA busy_timeout = 5000')
db.run('PRAGMA synchronous = NORMAL')
const perWebhook = Number(process.env.DISPATCHER_PER_WEBHOOK ?? 16)
const hook = db.query('SELECT id, target, secret FROM webhooks LIMIT 1').get() as { id: string; target: string; secret: string }

const lease = db.query(
  `UPDATE outbox SET lease_token = $token, lease_expires_at = $expires
   WHERE seq IN (SELECT seq FROM outbox INDEXED BY outbox_webhook_due
     WHERE status = 'pending' AND webhook_id = $webhook AND next_attempt_at <= $now AND (lease_expires_at IS NULL OR lease_expires_at <= $now)
     ORDER BY next_attempt_at, seq LIMIT $limit)
   RETURNING seq, event_id, event_type, attempts, trigger`,
)
const payload = db.query('SELECT payload FROM outbox_events WHERE event_id = ?')
const update = db.query(`UPDATE outbox SET status = 'delivered', attempts = ?, lease_token = NULL, lease_expires_at = NULL, updated_at = ? WHERE seq = ? AND lease_token = ?`)
const insert = db.query(
  `INSERT INTO delivery_attempts (outbox_seq, webhook_id, event_id, attempt, trigger, started_at, status_code, error, duration_ms, response_body, next_attempt_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
)

interface Row { seq: number; event_id: string; event_type: string; attempts: number; trigger: string; payload: string; token: string }
interface Answer { row: Row; status: number; startedAt: number; durationMs: number; body: string }

const queue: Row[] = []
const answers: Answer[] = []
let sending = 0
let flushTimer: Timer | null = null

function claim() {
  const now = Date.now()
  const token = crypto.randomUUID()
  const params = { $token: token, $expires: now + 60_000, $webhook: hook.id, $now: now, $limit: 5 * perWebhook }
  const rows = db.transaction(() => lease.all(params) as Row[]).immediate()
  db.transaction(() => {
    for (const row of rows) {
      row.token = token
      row.payload = (payload.get(row.event_id) as { payload: string }).payload
    }
  })()
  queue.push(...rows)
}

function flush() {
  if (flushTimer) clearTimeout(flushTimer)
  flushTimer = null
  const batch = answers.splice(0)
  db.transaction(() => {
    const now = Date.now()
    for (const a of batch) {
      update.run(a.row.attempts + 1, now, a.row.seq, a.row.token)
      insert.run(a.row.seq, hook.id, a.row.event_id, a.row.attempts + 1, a.row.trigger, a.startedAt, a.status, null, a.durationMs, a.body)
    }
  }).immediate()
}

async function send(row: Row) {
  const startedAt = Date.now()
  const res = await fetch(hook.target, {
    method: 'POST',
    body: row.payload,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'User-Agent': 'Service-Webhooks/1.0',
      'X-Service-Event': row.event_type,
      'X-Service-Delivery': row.event_id,
      'X-Service-Signature': 'sha256=' + new Bun.CryptoHasher('sha256', hook.secret).update(row.payload).digest('hex'),
    },
  })
  answers.push({ row, status: res.status, startedAt, durationMs: Date.now() - startedAt, body: await res.text() })
  if (answers.length >= 64) flush()
  else flushTimer ??= setTimeout(flush, 2)
  sending--
  pump()
}

function pump() {
  if (queue.length <= perWebhook) claim()
  while (sending < perWebhook && queue.length > 0) {
    sending++
    void send(queue.shift()!)
  }
}

setInterval(pump, 10)
process.on('SIGTERM', () => {
  if (portFile) rmSync(portFile, { force: true })
  process.exit(0)
})

// FLOOR_WAKE=1 (bench/latency-floor.ts): woken by the api's hint on commit too, as the real
// dispatcher is (db/outbox/wake-listener.ts), so its latency is the floor of a woken sender.
let portFile: string | null = null
if (process.env.FLOOR_WAKE) {
  const socket = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0, socket: { data: () => pump() } })
  const dir = `${process.env.DATABASE_PATH}.dispatchers`
  mkdirSync(dir, { recursive: true })
  portFile = `${dir}/floor.port`
  writeFileSync(portFile, String(socket.port))
}
