/**
 * The outbox store on SQLite (db/outbox/store.ts): the synchronous operations of db/outbox/,
 * unchanged (the api and the CLI still call them), behind the async interface the dispatcher
 * uses. Each method runs its SQLite work in one go through `useClient` (db/transaction.ts): at
 * once when no transaction of this process holds the connection, else right after it, so no
 * claim or record of the dispatcher ever runs inside the scheduled publish or site change its
 * own bookkeeping has open on the same connection.
 */
import { checkpoint, writeLockFreeNow, type SqliteDb as Db, type MayWrite } from '../client'
import { useClient } from '../transaction'
import type { OutboxRow } from '../schema'
import { claimDue, type ClaimedRow } from './claim'
import { Liveness } from './liveness'
import { pruneDeliveries, type PruneResult } from './prune'
import { recordAttempts, type Completion } from './record-attempts'
import { releaseLease } from './release-lease'
import { outboxRowExists } from './row-exists'
import { loadSendTarget, type SendTarget } from './send-target'
import type { OutboxStore, StoreClaimOptions, StoreWakeListener } from './store'
import { listenForWakes } from './wake-listener'
import { listWebhookIds } from './webhook-ids'

export interface SqliteStoreOptions {
  /**
   * Where started dispatchers keep their proof of life and wake ports (db/outbox/wake.ts
   * `dispatchersDir`), next to the database. Unset: leases alone, no wake hints (tests).
   */
  livenessDir?: string
  /** A dead owner's files are removed this long after it was found dead (the lease's length). */
  leaseMs?: number
}

/** The outbox of one SQLite database, for one dispatcher. */
export class SqliteOutboxStore implements OutboxStore {
  readonly dialect = 'sqlite'
  private readonly liveness: Liveness | null
  /** This dispatcher's owner id while its proof of life is held. */
  private owner: string | undefined
  private readonly dataVersion

  private readonly dir: string | undefined

  constructor(private readonly db: Db, opts: SqliteStoreOptions = {}) {
    this.dir = opts.livenessDir
    this.liveness = this.dir ? new Liveness(this.dir, opts.leaseMs ?? 60_000) : null
    this.dataVersion = db.$client.query<{ data_version: number }, []>('PRAGMA data_version')
  }

  async claim(opts: StoreClaimOptions): Promise<ClaimedRow[]> {
    return useClient(this.db, (c) => claimDue(c, { ...opts, owner: this.owner, deadOwners: this.liveness?.deadOwners }))
  }

  async releaseLease(row: Pick<OutboxRow, 'seq' | 'leaseToken'>): Promise<void> {
    await useClient(this.db, (c) => releaseLease(c, row))
  }

  async recordAttempts(items: readonly Completion[], at: number): Promise<boolean[]> {
    return useClient(this.db, (c) => recordAttempts(c, items, at))
  }

  async prune(cutoff: number, max: number, mayWrite: MayWrite, from: number): Promise<PruneResult> {
    return useClient(this.db, (c) => pruneDeliveries(c, cutoff, max, mayWrite, from))
  }

  async rowExists(seq: number): Promise<boolean> {
    return useClient(this.db, (c) => outboxRowExists(c, seq))
  }

  async sendTarget(id: string): Promise<SendTarget | null> {
    return useClient(this.db, (c) => loadSendTarget(c, id))
  }

  async webhookIds(): Promise<string[]> {
    return useClient(this.db, (c) => listWebhookIds(c))
  }

  /** `PRAGMA data_version`: changes when another connection commits (about 1.5 µs a read). */
  commitVersion(): number {
    return this.dataVersion.get()!.data_version
  }

  writeLockFree(): boolean {
    return writeLockFreeNow(this.db)
  }

  async checkpoint(): Promise<void> {
    await useClient(this.db, () => checkpoint(this.db))
  }

  async startProofOfLife(): Promise<string | null> {
    if (!this.liveness?.start()) return null
    this.owner = this.liveness.owner
    return this.owner
  }

  /** Tries the other owners' locks (those it can take are dead); this one's flock holds while the process runs. */
  async checkProofOfLife(now: number): Promise<boolean> {
    if (this.owner) this.liveness!.scan(now)
    return this.owner !== undefined
  }

  async stopProofOfLife(): Promise<void> {
    this.liveness?.stop()
    this.owner = undefined
  }

  /** UDP hints (db/outbox/wake.ts), only while the proof of life is held: its directory names the port. */
  async listenForWakes(onWake: () => void): Promise<StoreWakeListener | null> {
    return this.dir && this.owner ? listenForWakes(this.dir, this.owner, onWake) : null
  }
}
