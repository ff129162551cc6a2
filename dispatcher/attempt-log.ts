/** The log line of one recorded (or unrecorded) attempt. */
import type { ClaimedRow } from '../db/outbox/store'
import { componentLogger, type Logger } from '../core/log'
import type { AttemptResult } from '../core/delivery/deliver'
import type { NextStep } from '../core/delivery/retry'

/**
 * Logs attempt `row.attempts + 1` of `row`: delivered at info, a retry or a final failure at
 * warn, a lease lost at warn; `kept` says whether the attempt was recorded under its lease, and
 * for one that was not, `gone` whether the row went with its webhook (OutboxStore.rowExists).
 */
export function logAttempt(log: Logger, row: ClaimedRow, result: AttemptResult, step: NextStep, kept: boolean, gone = false): void {
  // Nothing to write for a delivered attempt below info: no fields, no child logger.
  if (kept && step.status === 'delivered' && !log.isLevelEnabled('info')) return
  const outcome = step.status === 'pending' ? 'retry' : step.status
  const fields = { attempt: row.attempts + 1, statusCode: result.statusCode, error: result.error, detail: result.detail, durationMs: result.durationMs, outcome }
  // style.md rule 10: a child logger per delivery, made only when a line is written. A sibling
  // of `log`, not its child: a child would write "component" twice (core/log.ts).
  const line = componentLogger(log, 'delivery', { eventId: row.eventId, webhookId: row.webhookId })
  if (!kept) {
    // The row is gone with its webhook (deleted during the send): nothing to record, nothing wrong.
    if (gone) line.info({ ...fields, outcome: 'dropped' }, 'the webhook was deleted during the send; the attempt is not recorded')
    else line.warn(fields, 'lease lost before the attempt was recorded; another dispatcher owns the row')
  } else if (step.status === 'delivered') line.info(fields, 'webhook delivered')
  else line.warn(fields, step.status === 'failed' ? 'webhook delivery failed for good' : 'webhook attempt failed, will retry')
}
