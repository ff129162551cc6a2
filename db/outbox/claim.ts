/**
 * Claim (style.md "Outbox and leases"): due rows are leased with one `UPDATE ... RETURNING`
 * per webhook that sets a lease token and expiry; every later write to a claimed row is
 * guarded by that token; a row whose lease expired (its dispatcher died) is due again.
 */
import type { Database } from 'bun:sqlite'
import type { MayWrite } from '../client'
import type { OutboxRow } from '../schema'
import { listWebhookIds } from './webhook-ids'

export interface ClaimOptions {
  now: number
  leaseMs: number
  limit: number
  /** At most this many rows of one webhook in flight, so one backlog or dead receiver cannot take every slot. */
  perWebhook?: number
  /** Sends this dispatcher already has in flight, per webhook id. */
  inFlight?: Record<string, number>
  /** The webhooks to claim for (default: every webhook, read now). */
  webhookIds?: readonly string[]
  /** Rows of one webhook that may be claimed now; replaces `perWebhook`/`inFlight` when given. */
  budget?: (webhookId: string) => number
  /** Asked once rows are found due, before the lease is written; false claims nothing now. */
  mayWrite?: MayWrite
  /** The claiming dispatcher's owner id (db/outbox/liveness.ts): its lease tokens are `<owner>/<uuid>`. */
  owner?: string
  /** Owners proved dead: their leased rows are claimable now, whatever their lease says. */
  deadOwners?: readonly string[]
}

/** A claimed outbox row (what sending and recording need) with its event's stored bytes, sent as they are. */
export type ClaimedRow = Pick<OutboxRow, 'seq' | 'eventId' | 'webhookId' | 'eventType' | 'status' | 'attempts' | 'trigger' | 'leaseToken'> & {
  payload: string
}

/** Due, and not leased: never leased, the lease expired, or its owner is proved dead (`$dead`: a JSON array, or null). */
const DUE = `status = 'pending' AND webhook_id = $webhook AND next_attempt_at <= $now
  AND (lease_expires_at IS NULL OR lease_expires_at <= $now
    OR ($dead IS NOT NULL AND substr(lease_token, 1, instr(lease_token, '/') - 1) IN (SELECT value FROM json_each($dead))))`

/**
 * Claims up to `limit` due rows; returns them with the lease token set, in `seq` order.
 * Per webhook (within its budget, so a backlog or a dead receiver never starves the others)
 * ONE `UPDATE ... RETURNING` picks its earliest due rows through an index range scan and
 * leases them: a single write statement holds the write lock from its first read, so two
 * dispatchers never own the same row. A row leased by a dispatcher proved dead (`deadOwners`)
 * is claimed like a free one: its sends come back in seconds after a crash, not a lease later. The events' stored bytes are read after the lease
 * commits. Webhooks with nothing due are skipped by a read before, so an idle poll never takes
 * the write lock.
 */
export function claimDue(client: Database, opts: ClaimOptions): ClaimedRow[] {
  if (opts.limit <= 0) return []
  const perWebhook = opts.perWebhook ?? opts.limit
  const hooks = opts.webhookIds ?? listWebhookIds(client)
  const dead = opts.deadOwners?.length ? JSON.stringify(opts.deadOwners) : null
  const anyDue = client.query(`SELECT 1 FROM outbox INDEXED BY outbox_webhook_due WHERE ${DUE} LIMIT 1`)
  const budgets = client.transaction(() => {
    const found: [string, number][] = []
    for (const id of hooks) {
      const budget = opts.budget ? opts.budget(id) : perWebhook - (opts.inFlight?.[id] ?? 0)
      if (budget > 0 && anyDue.values({ webhook: id, now: opts.now, dead }).length > 0) found.push([id, budget])
    }
    return found
  })()
  if (budgets.length === 0 || (opts.mayWrite && !opts.mayWrite())) return []
  const leaseRows = client.query(
    `UPDATE outbox SET lease_token = $token, lease_expires_at = $expires
     WHERE seq IN (SELECT seq FROM outbox INDEXED BY outbox_webhook_due WHERE ${DUE} ORDER BY next_attempt_at, seq LIMIT $limit)
     RETURNING seq, event_id, event_type, attempts, trigger`,
  )
  // The event's bytes, one indexed lookup per row (a subquery in RETURNING costs twice as much).
  const payload = client.query(`SELECT payload FROM outbox_events WHERE event_id = ?`)
  const token = opts.owner ? `${opts.owner}/${crypto.randomUUID()}` : crypto.randomUUID()
  // The write transaction only leases: the api's writers wait for this lock, so the reads below
  // (immutable bytes of rows this dispatcher now owns) run after it, in a read transaction.
  const lease = client.transaction(() => {
    const leased: ClaimedRow[] = []
    let left = opts.limit
    for (const [webhookId, budget] of budgets) {
      if (left <= 0) break
      const params = { token, expires: opts.now + opts.leaseMs, webhook: webhookId, now: opts.now, dead, limit: Math.min(budget, left) }
      for (const [seq, eventId, eventType, attempts, trigger] of leaseRows.values(params) as [number, string, string, number, ClaimedRow['trigger']][]) {
        leased.push({ seq, eventId, webhookId, eventType, status: 'pending', attempts, trigger, leaseToken: token, payload: '' })
        left--
      }
    }
    return leased
  })
  const readPayloads = client.transaction((rows: ClaimedRow[]) => {
    for (const row of rows) {
      const found = payload.values(row.eventId)[0] as [string] | undefined
      // Written with its outbox rows in one transaction; missing means a broken database, not a retry.
      if (!found) throw new Error(`outbox event ${row.eventId} has no stored payload`)
      row.payload = found[0]
    }
    return rows
  })
  return readPayloads(lease.immediate()).sort((a, b) => a.seq - b.seq)
}
