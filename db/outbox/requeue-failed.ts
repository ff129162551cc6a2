/** Recover (core/webhooks/recover.ts): one webhook's failed deliveries of a window back to pending. */
import type { Database } from 'bun:sqlite'
import { wakeDispatchers } from './wake'

export interface FailedWindow {
  webhookId: string
  /** Events that happened in `[since, until)`, ms. */
  since: number
  until: number
  /** Rows last written before this time only: what failed before the recover began. */
  before: number
}

/**
 * The seqs of `webhookId`'s deliveries that ended `failed` for events of the window, test sends
 * left out, in the order they happened. A webhook's failed rows are few next to its delivered
 * ones: the (status, webhook_id, ...) index finds them without reading its whole log.
 */
export function failedInWindow(client: Database, w: FailedWindow): number[] {
  const rows = client.query(
    `SELECT seq FROM outbox INDEXED BY outbox_webhook_due
     WHERE status = 'failed' AND webhook_id = $webhook AND trigger <> 'test'
       AND created_at >= $since AND created_at < $until AND updated_at < $before`,
  ).values({ webhook: w.webhookId, since: w.since, until: w.until, before: w.before }) as [number][]
  return rows.map(([seq]) => seq).sort((a, b) => a - b)
}

/**
 * Makes those of `seqs` still `failed` and last written before `now` pending again, due at `now`,
 * with a fresh budget and trigger `manual`, in one write transaction, and hints the dispatchers
 * (db/outbox/wake.ts). Answers how many it queued: a row queued meanwhile by another recover, or
 * one that failed again since, is not queued twice.
 */
export function requeueFailed(client: Database, webhookId: string, seqs: readonly number[], now: number): number {
  const queued = client.transaction(() => client.query(
    `UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = $now, lease_token = NULL, lease_expires_at = NULL,
       trigger = 'manual', updated_at = $now
     WHERE seq IN (SELECT value FROM json_each($seqs)) AND webhook_id = $webhook AND status = 'failed' AND updated_at < $now`,
  ).run({ now, seqs: JSON.stringify(seqs), webhook: webhookId }).changes).immediate()
  if (queued > 0) wakeDispatchers(client)
  return queued
}
