/**
 * Wake on commit on PostgreSQL (the twin of db/outbox/wake.ts and db/outbox/wake-listener.ts):
 * whoever writes outbox rows sends `NOTIFY` on one channel inside its transaction, which
 * PostgreSQL delivers to every listening session when, and only if, it commits. Every dispatcher
 * on any machine LISTENs and claims at once. The outbox stays the only source of truth: a
 * notification lost (the listening connection dropped, the dispatcher was busy) costs latency
 * until the next poll, never an event.
 */
import type { SQL } from 'bun'

/** The channel of outbox wakes. */
export const WAKE_CHANNEL = 'outbox_wake'

/**
 * Queues the wake in the caller's transaction. The payload is always the same, so PostgreSQL
 * folds a transaction's wakes into one notification, however many events it wrote.
 */
export async function notifyDispatchers(tx: SQL): Promise<void> {
  await tx`SELECT pg_notify(${WAKE_CHANNEL}, '')`
}

export interface WakeListener {
  close(): Promise<void>
}

/**
 * LISTENs for wakes on `sql`'s listening connection and calls `onWake` for each. After the
 * connection dropped and came back (Bun re-subscribes), `onWake` runs once more: what was
 * committed meanwhile was never announced to this session.
 */
export async function listenForWakes(sql: SQL, onWake: () => void): Promise<WakeListener> {
  let subscribed = false
  const sub = await sql.listen(WAKE_CHANNEL, () => onWake(), () => {
    if (subscribed) onWake()
    subscribed = true
  })
  return { close: () => sub.unlisten() }
}
