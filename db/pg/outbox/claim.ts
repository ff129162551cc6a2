/**
 * Claim on PostgreSQL (style.md "Outbox and leases"; the twin of db/outbox/claim.ts): due rows
 * are leased by one statement that picks each webhook's earliest due rows `FOR UPDATE SKIP
 * LOCKED` and sets a lease token and expiry with `UPDATE ... RETURNING`; every later write to a
 * claimed row is guarded by that token. Due: pending, `next_attempt_at <= now`, and never leased,
 * its lease expired, or its owner proved dead (no session holds its proof of life, liveness.ts).
 */
import type { SQL } from 'bun'
import type { ClaimedRow, ClaimOptions } from '../../outbox/claim'
import { ownerDeadSql } from './liveness'
import { listWebhookIds } from './webhook-ids'

/**
 * As on SQLite, less what PostgreSQL does itself: there is no write lock to wait for
 * (`mayWrite`), and a dead owner is proved inside the claim, not passed in (`deadOwners`).
 * `owner` must be held by this process (`PgLiveness.start`).
 */
export type PgClaimOptions = Omit<ClaimOptions, 'mayWrite' | 'deadOwners'>

/**
 * Claims up to `limit` due rows; returns them with the lease token set and their event's bytes,
 * in `seq` order. One statement for every webhook, each within its budget (so a backlog or a
 * dead receiver never starves the others), filled in the order of `webhookIds` until `limit`.
 * `SKIP LOCKED` makes concurrent claims pass over each other's rows rather than wait for them,
 * and a row another claim leased since this one's snapshot fails the re-check of `DUE` on its
 * new version: two dispatchers never hold the same row inside a lease. Run it on the pool (or a
 * READ COMMITTED transaction): under REPEATABLE READ such a row fails the claim with a
 * serialization error instead of being passed over.
 */
export async function claimDue(sql: SQL, opts: PgClaimOptions): Promise<ClaimedRow[]> {
  if (opts.limit <= 0) return []
  const perWebhook = opts.perWebhook ?? opts.limit
  const hooks = opts.webhookIds ?? (await listWebhookIds(sql))
  const ids: string[] = []
  const budgets: number[] = []
  for (const id of hooks) {
    const budget = opts.budget ? opts.budget(id) : perWebhook - (opts.inFlight?.[id] ?? 0)
    if (budget > 0) ids.push(id), budgets.push(Math.min(budget, opts.limit))
  }
  if (ids.length === 0) return []
  const token = opts.owner ? `${opts.owner}/${crypto.randomUUID()}` : crypto.randomUUID()
  // $1 webhook ids, $2 budgets, $3 now, $4 limit, $5 token, $6 lease expiry. The executor pulls
  // rows on demand, so past the outer LIMIT no webhook's rows are read, nor locked.
  const rows: Omit<ClaimedRow, 'status' | 'leaseToken'>[] = await sql.unsafe(
    `WITH picked AS (
       SELECT due.seq FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS b(webhook_id, budget, ord)
       CROSS JOIN LATERAL (
         SELECT seq FROM outbox
         WHERE status = 'pending' AND webhook_id = b.webhook_id AND next_attempt_at <= $3
           AND (lease_token IS NULL OR lease_expires_at <= $3 OR ${ownerDeadSql('lease_token')})
         ORDER BY next_attempt_at, seq LIMIT b.budget
         FOR UPDATE SKIP LOCKED
       ) due
       LIMIT $4
     ), leased AS (
       UPDATE outbox o SET lease_token = $5, lease_expires_at = $6 FROM picked WHERE o.seq = picked.seq
       RETURNING o.seq, o.event_id, o.webhook_id, o.event_type, o.attempts, o.trigger
     )
     SELECT l.seq::float8 AS "seq", l.event_id AS "eventId", l.webhook_id AS "webhookId", l.event_type AS "eventType",
       l.attempts::int AS "attempts", l.trigger::text AS "trigger", e.payload
     FROM leased l LEFT JOIN outbox_events e ON e.event_id = l.event_id ORDER BY l.seq`,
    [sql.array(ids, 'TEXT'), sql.array(budgets, 'INT'), opts.now, opts.limit, token, opts.now + opts.leaseMs],
  )
  return rows.map((r) => {
    // Written with its outbox rows in one transaction; missing means a broken database, not a retry.
    if (r.payload == null) throw new Error(`outbox event ${r.eventId} has no stored payload`)
    return { ...r, status: 'pending', leaseToken: token }
  })
}
