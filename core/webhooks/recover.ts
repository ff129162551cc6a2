/**
 * Recover (contract.md "Webhooks"): every event of one webhook that happened in a window and
 * whose delivery ended `failed` is sent again, oldest first, as a redelivery is: the same outbox
 * row (same `eventId`, same stored bytes) back to pending with a fresh budget of attempts,
 * logged as `manual`. It is only outbox rows, so the dispatcher sends them through the
 * webhook's own send slots and no other webhook waits for them.
 */
import type { Db } from '../../db/client'
import { failedDeliveries, requeueFailedDeliveries } from '../../db/queries/webhooks'
import { badRequest } from '../errors'
import { parseTimestamp, timestampProblem } from '../timestamps'
import type { RecoverRequest } from './model'
import { between, getWebhookRow } from './service'

/** Deliveries one write transaction of a recover queues: a few ms of write lock each. */
export const RECOVER_STEP = 500

/** The window `[since, until)` in ms; `until` defaults to `now`. Refusals are `400 bad_window`. */
export function parseWindow(input: RecoverRequest, now: number): { since: number; until: number } {
  const since = parseTimestamp(input.since)
  if (since === null) throw badRequest('bad_window', timestampProblem('since'))
  const until = input.until === undefined ? now : parseTimestamp(input.until)
  if (until === null) throw badRequest('bad_window', timestampProblem('until'))
  // A window in the future has nothing that failed yet: most likely a local time sent as UTC.
  if (since > now) throw badRequest('bad_window', '`since` lies in the future: no delivery there has failed yet. Is it in UTC or with its offset?')
  if (until <= since) throw badRequest('bad_window', '`until` must come after `since`.')
  return { since, until }
}

/**
 * Queues again the failed deliveries of webhook `id` (of team `teamId`, else 404) whose events
 * happened in the window, and answers how many it queued. Test sends are left out: they are
 * samples, not events a receiver missed.
 *
 * Only rows still `failed` and last written before this recover began are taken (guarded again
 * in each write), so a second recover over the same window, even while this one runs, queues
 * none of them twice, and a row this one queued that has failed again meanwhile is not queued
 * by it a second time. Every row gets the same due time, so the dispatcher's claim (earliest due,
 * then `seq`) sends them oldest first. Thousands go in steps of `RECOVER_STEP`, each a short
 * write transaction, with the lock left free between them as a webhook's deletion does.
 */
export async function recoverFailed(db: Db, teamId: string, id: string, input: RecoverRequest, now = Date.now()): Promise<{ queued: number }> {
  await getWebhookRow(db, teamId, id)
  const { since, until } = parseWindow(input, now)
  const seqs = await failedDeliveries(db, { webhookId: id, since, until, before: now })
  let queued = 0
  for (let i = 0; i < seqs.length; i += RECOVER_STEP) {
    const t = performance.now()
    queued += await requeueFailedDeliveries(db, id, seqs.slice(i, i + RECOVER_STEP), now)
    if (i + RECOVER_STEP < seqs.length) await between(db, performance.now() - t)
  }
  return { queued }
}
