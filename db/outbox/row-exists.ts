/** Whether an outbox row is still there (it goes with its webhook). */
import type { Database } from 'bun:sqlite'

/** True while outbox row `seq` exists. */
export function outboxRowExists(client: Database, seq: number): boolean {
  return client.query('SELECT 1 FROM outbox WHERE seq = ?').get(seq) !== null
}
