/**
 * The dispatcher's proof of life and wake listener, both kept by its OutboxStore (SQLite: a
 * flock and a UDP port beside the database; PostgreSQL: a session advisory lock and LISTEN).
 * While the proof is held the store's claims write lease tokens under its owner id, and other
 * dispatchers that find it gone take those rows at once (docs/dispatcher.md "Crash recovery").
 */
import type { OutboxStore, StoreWakeListener } from '../db/outbox/store'
import type { Logger } from '../core/log'

export class ProofOfLife {
  /** This dispatcher's owner id while its proof is held. */
  private owner: string | null = null
  /** The proof was lost (PostgreSQL: its session ended): the next full pass takes a new one. */
  private lost = false
  private wake: Promise<StoreWakeListener | null> | null = null

  /** `livenessDir`: named in the warning when no proof can be kept. */
  constructor(private readonly store: OutboxStore, private readonly log: Logger, private readonly livenessDir?: string) {}

  /** Takes the proof and, with it, listens for wakes; without one, warns (`warn`) and runs on leases alone. */
  async start(onWake: () => void, warn: boolean): Promise<void> {
    this.owner = await this.take()
    // Every lease token this dispatcher writes starts with its owner id: the line ties a token to a process.
    if (this.owner) this.log.info({ owner: this.owner, pid: process.pid }, 'proof of life held')
    if (this.owner) this.wake = this.store.listenForWakes(onWake)
    else if (warn) this.log.warn({ livenessDir: this.livenessDir }, 'no proof of life could be kept; after a crash, this dispatcher\'s rows come back when their leases expire')
  }

  /** At each full pass: others proved dead (SQLite), and this proof still held, or a new one taken. */
  async check(at: number): Promise<void> {
    if (this.owner && (await this.store.checkProofOfLife(at))) return
    if (!this.owner && !this.lost) return
    // Rows leased under the old owner may be another dispatcher's now: their records are refused by the token guard.
    if (!this.lost) this.log.warn({ owner: this.owner }, 'proof of life lost; claiming under a new owner id (sends in flight may go out twice)')
    this.lost = true
    this.owner = await this.take()
    if (this.owner) this.lost = false
    if (this.owner) this.log.info({ owner: this.owner, pid: process.pid }, 'proof of life held')
  }

  /** Stops the wakes and gives the proof up (a clean stop). */
  async stop(): Promise<void> {
    await (await this.wake)?.close()
    this.wake = null
    await this.store.stopProofOfLife()
    this.owner = null
  }

  private take(): Promise<string | null> {
    return this.store.startProofOfLife().catch((err) => (this.log.error({ err }, 'taking a proof of life failed'), null))
  }
}
