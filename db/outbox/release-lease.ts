/** Lease release: a claimed row given back untouched. */
import type { Database } from 'bun:sqlite'
import type { OutboxRow } from '../schema'

/** Gives a claimed row back untouched (its webhook vanished, its queue wait ran out, or on shutdown): claimable again at once. */
export function releaseLease(client: Database, row: Pick<OutboxRow, 'seq' | 'leaseToken'>): void {
  client.query('UPDATE outbox SET lease_token = NULL, lease_expires_at = NULL WHERE seq = ? AND lease_token = ?').run(row.seq, row.leaseToken)
}
