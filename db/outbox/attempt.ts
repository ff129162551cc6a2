/**
 * What the outbox stores of one delivery attempt, and the step that follows it. The delivery
 * code in core/delivery builds on these shapes (its `AttemptResult` adds what is never stored),
 * so db/ names them itself and imports nothing from core/.
 */

/** The stored part of an attempt's result: a delivery attempt row's columns. */
export interface AttemptRecord {
  statusCode: number | null
  error: string | null
  durationMs: number
  responseBody: string
}

/** After an attempt: delivered, tried again after `delayMs`, or failed for good. */
export type NextStep =
  | { status: 'delivered' }
  | { status: 'pending'; delayMs: number }
  | { status: 'failed' }
