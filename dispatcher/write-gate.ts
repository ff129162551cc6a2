/**
 * Every write of the dispatcher asks first whether the write lock is free. bun:sqlite waits for
 * a lock inside the statement, synchronously: a large seed or import holding it would stop this
 * process for up to busy_timeout, every answer of a send in flight unread (its duration, and
 * its timeout, counted wrong) and SIGTERM unanswered. So a write that finds the lock taken is
 * tried again on a later turn (claims at the next tick, records after a short backoff,
 * schedules and site changes at the next full pass) and the event loop goes on reading answers
 * meanwhile. Only a step that found work asks: an idle pass takes no lock at all.
 */
import type { Logger } from '../core/log'

/** A write lock held by another process this long is worth a warning (once per wait). */
export const LOCK_WARN_MS = 10_000

/** `free()` asks `probe` and warns once when another process holds the lock for long. */
export class WriteGate {
  private takenSince: number | null = null
  private warned = false

  constructor(private readonly probe: () => boolean, private readonly now: () => number, private readonly log: Logger) {}

  /** Whether the write lock is free at this moment. */
  readonly free = (): boolean => {
    if (this.probe()) {
      this.takenSince = null
      this.warned = false
      return true
    }
    const t = this.now()
    this.takenSince ??= t
    if (!this.warned && t - this.takenSince >= LOCK_WARN_MS) {
      this.warned = true
      this.log.warn({ waitedMs: t - this.takenSince }, 'another process has held the database write lock for a while; claims and records wait for it')
    }
    return false
  }
}
