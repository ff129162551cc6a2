/**
 * The outbox as the dispatcher sees it: one async interface, `OutboxStore`, with a SQLite
 * implementation (db/outbox/sqlite-store.ts, over the synchronous operations of db/outbox/) and
 * a PostgreSQL one (db/pg/outbox/store.ts, over db/pg/outbox/). The dispatcher (dispatcher/)
 * does every piece of outbox work through it, awaited, so the same loop runs on either database
 * (docs/dispatcher.md "OutboxStore"). Types only here: a SQLite process never loads the
 * PostgreSQL modules.
 */
import type { MayWrite } from '../client'
import type { OutboxRow } from '../schema'
import type { ClaimedRow, ClaimOptions } from './claim'
import type { PruneResult } from './prune'
import type { Completion } from './record-attempts'
import type { SendTarget } from './send-target'

export type { ClaimedRow } from './claim'
export type { Completion } from './record-attempts'
export type { PruneResult } from './prune'
export type { SendTarget } from './send-target'

/**
 * A claim as the dispatcher asks for it. Dead owners are the store's own business (proof of
 * life below), and so is the lease token's owner prefix.
 */
export type StoreClaimOptions = Pick<ClaimOptions, 'now' | 'leaseMs' | 'limit' | 'budget' | 'webhookIds' | 'mayWrite'>

/** The wake listener a store started; closing it stops the wakes. */
export interface StoreWakeListener {
  close(): void | Promise<void>
}

/** Everything the dispatcher asks of the outbox. */
export interface OutboxStore {
  readonly dialect: 'sqlite' | 'postgresql'
  /**
   * Leases up to `limit` due rows (each webhook within its budget) under this store's owner, if
   * its proof of life is held; `mayWrite` (SQLite) is asked once rows are found due.
   */
  claim(opts: StoreClaimOptions): Promise<ClaimedRow[]>
  /** Gives a claimed row back untouched (guarded by its lease token). */
  releaseLease(row: Pick<OutboxRow, 'seq' | 'leaseToken'>): Promise<void>
  /** Records answered attempts in one transaction; per item, whether its lease was still held. */
  recordAttempts(items: readonly Completion[], at: number): Promise<boolean[]>
  /** One step of the retention sweep (db/outbox/prune.ts), deliveries and their leftovers. */
  prune(cutoff: number, max: number, mayWrite: MayWrite, from: number): Promise<PruneResult>
  /** Whether outbox row `seq` still exists (it goes with its webhook). */
  rowExists(seq: number): Promise<boolean>
  /** What a send needs of webhook `id` now; null when it was deleted. */
  sendTarget(id: string): Promise<SendTarget | null>
  /** Every webhook's id: the candidates a claim looks at. */
  webhookIds(): Promise<string[]>
  /**
   * Changes when another process committed (SQLite's `PRAGMA data_version`; on PostgreSQL, the
   * wakes received). Synchronous: the webhook cache and the 10 ms tick ask it between awaits,
   * and it costs no round trip on either database.
   */
  commitVersion(): number
  /**
   * The write gate (dispatcher/write-gate.ts): whether a write may go now without waiting for
   * another process's lock. Synchronous: the SQLite claim and prune ask it between their read
   * and their write, inside one synchronous call. Always true on PostgreSQL (no database-wide
   * write lock; a statement waits for row locks under its statement timeout).
   */
  writeLockFree(): boolean
  /** Copies the SQLite WAL back (PASSIVE); nothing on PostgreSQL, which checkpoints itself. */
  checkpoint(): Promise<void>
  /**
   * Takes this dispatcher's proof of life (SQLite: a flock on a side file; PostgreSQL: a session
   * advisory lock) and returns its owner id, the prefix of every lease token it then writes;
   * null when none can be kept (the dispatcher runs on leases alone).
   */
  startProofOfLife(): Promise<string | null>
  /**
   * At each full pass: looks for other owners proved dead (SQLite) and checks that this one's
   * proof still holds; false means it was lost (PostgreSQL: the session ended) and the caller
   * takes a new one before claiming again.
   */
  checkProofOfLife(now: number): Promise<boolean>
  /** Gives the proof of life up (a clean stop). */
  stopProofOfLife(): Promise<void>
  /** Calls `onWake` when another process commits outbox rows; null when no listener could be made. */
  listenForWakes(onWake: () => void): Promise<StoreWakeListener | null>
}
