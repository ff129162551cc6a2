/**
 * Builds webhook events and writes them to the outbox inside the caller's transaction.
 * Placeholder until the webhooks issue: publishing calls it so the event lands atomically
 * with the change once webhooks exist.
 */
import type { Tx } from '../../db/client'
import type { DocumentRow } from '../../db/schema'

export interface PublishedChange {
  teamId: string
  before: DocumentRow | null
  after: DocumentRow
  userId: string | null
  locales: string[]
}

export function recordPublished(_tx: Tx, _change: PublishedChange): void {}

export interface UnpublishedChange {
  teamId: string
  before: DocumentRow
  status: 'archived' | 'deleted'
  userId: string | null
}

export function recordUnpublished(_tx: Tx, _change: UnpublishedChange): void {}
