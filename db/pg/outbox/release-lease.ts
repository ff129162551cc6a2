/** Lease release on PostgreSQL (twin of db/outbox/release-lease.ts): a claimed row given back untouched. */
import type { SQL } from 'bun'
import type { OutboxRow } from '../../schema'

/** Gives a claimed row back untouched (its webhook vanished, its queue wait ran out, or on shutdown): claimable again at once. */
export async function releaseLease(sql: SQL, row: Pick<OutboxRow, 'seq' | 'leaseToken'>): Promise<void> {
  await sql`UPDATE outbox SET lease_token = NULL, lease_expires_at = NULL WHERE seq = ${row.seq} AND lease_token = ${row.leaseToken}`
}
