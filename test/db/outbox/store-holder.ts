/**
 * A dispatcher that claims and then dies, for test/db/outbox/store.test.ts: it opens an
 * OutboxStore (`sqlite <path>` or `postgresql <url>`), takes its proof of life, claims up to
 * `limit` rows at `now` under a lease of `leaseMs`, prints their lease token and seqs as one JSON
 * line, and holds them (and its proof of life) until killed.
 */
import { SQL } from 'bun'
import { openDb } from '../../../db/client'
import { pgClientOptions } from '../../../db/pg/client'
import { SqliteOutboxStore } from '../../../db/outbox/sqlite-store'
import { PgOutboxStore } from '../../../db/pg/outbox/store'
import { dispatchersDir } from '../../../db/outbox/wake'
import type { OutboxStore } from '../../../db/outbox/store'

const [dialect, where, limit, now, leaseMs] = process.argv.slice(2)
const store: OutboxStore = dialect === 'sqlite'
  ? new SqliteOutboxStore(openDb(where!, { migrate: false }), { livenessDir: dispatchersDir(where!), leaseMs: Number(leaseMs) })
  : new PgOutboxStore(new SQL(pgClientOptions(where!, { processName: 'test holder', poolSize: 2 })))
const owner = await store.startProofOfLife()
const rows = await store.claim({ now: Number(now), leaseMs: Number(leaseMs), limit: Number(limit), budget: () => Number(limit) })
process.stdout.write(JSON.stringify({ owner, token: rows[0]?.leaseToken, seqs: rows.map((r) => r.seq) }) + '\n')
setInterval(() => {}, 60_000) // alive, holding its leases and its proof of life, until killed
