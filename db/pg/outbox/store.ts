/**
 * The outbox store on PostgreSQL (db/outbox/store.ts): the async operations of db/pg/outbox/
 * behind the interface the dispatcher uses. What PostgreSQL does itself is no method's work
 * here: no write lock to wait for (`writeLockFree` is always true, claims ignore `mayWrite`),
 * no WAL to copy back, and a dead owner is proved inside the claim (claim.ts, liveness.ts).
 * dispatcher/main.ts uses it when DATABASE_URL is set (docs/postgresql.md "The outbox on PostgreSQL").
 */
import type { SQL } from 'bun'
import type { OutboxRow } from '../../schema'
import type { ClaimedRow, Completion, OutboxStore, PruneResult, SendTarget, StoreClaimOptions, StoreWakeListener } from '../../outbox/store'
import { claimDue } from './claim'
import { PgLiveness } from './liveness'
import { pruneDeliveries } from './prune'
import { recordAttempts } from './record-attempts'
import { releaseLease } from './release-lease'
import { outboxRowExists } from './row-exists'
import { loadSendTarget } from './send-target'
import { listenForWakes } from './wake'
import { listWebhookIds } from './webhook-ids'

/** The outbox of one PostgreSQL database, for one dispatcher, on a Bun.sql pool. */
export class PgOutboxStore implements OutboxStore {
  readonly dialect = 'postgresql'
  private readonly liveness: PgLiveness
  /** Wakes received: what `commitVersion` answers (no `data_version` here). */
  private wakes = 0

  /** `sql`: the pool (claims must run outside a REPEATABLE READ transaction, claim.ts). */
  constructor(private readonly sql: SQL) {
    this.liveness = new PgLiveness(sql)
  }

  async claim(opts: StoreClaimOptions): Promise<ClaimedRow[]> {
    const { mayWrite: _, ...rest } = opts
    return claimDue(this.sql, { ...rest, owner: this.liveness.owner ?? undefined })
  }

  releaseLease(row: Pick<OutboxRow, 'seq' | 'leaseToken'>): Promise<void> {
    return releaseLease(this.sql, row)
  }

  recordAttempts(items: readonly Completion[], at: number): Promise<boolean[]> {
    return recordAttempts(this.sql, items, at)
  }

  /** No write lock to ask for (`mayWrite` is SQLite's): the removal is one statement that checks each row again. */
  prune(cutoff: number, max: number, _mayWrite: unknown, from: number): Promise<PruneResult> {
    return pruneDeliveries(this.sql, cutoff, max, from)
  }

  rowExists(seq: number): Promise<boolean> {
    return outboxRowExists(this.sql, seq)
  }

  sendTarget(id: string): Promise<SendTarget | null> {
    return loadSendTarget(this.sql, id)
  }

  webhookIds(): Promise<string[]> {
    return listWebhookIds(this.sql)
  }

  /**
   * The wakes received so far. Every commit that writes outbox rows wakes (insert-event.ts), and
   * so does a webhook's PATCH or DELETE (db/pg/queries/webhooks.ts), so the webhook cache reads
   * it again; other commits do not. A wake arrives a moment after its commit: a send started in
   * that moment still goes out with the webhook as it was.
   */
  commitVersion(): number {
    return this.wakes
  }

  writeLockFree(): boolean {
    return true
  }

  async checkpoint(): Promise<void> {}

  startProofOfLife(): Promise<string> {
    return this.liveness.start()
  }

  /** Whether this owner's session still holds its lock; other owners are proved dead inside each claim. */
  checkProofOfLife(_now: number): Promise<boolean> {
    return this.liveness.check()
  }

  stopProofOfLife(): Promise<void> {
    return this.liveness.stop()
  }

  listenForWakes(onWake: () => void): Promise<StoreWakeListener> {
    return listenForWakes(this.sql, () => {
      this.wakes++
      onWake()
    })
  }
}
