/**
 * The attempt recorder: answered attempts wait here and are written together, one write
 * transaction for many (a commit costs about as much as the rows it writes). A batch is
 * written once `batch` answers wait, or `waitMs` after the first. An answered row keeps its
 * lease until recorded: a crash before that sends it again (at least once). No database here:
 * the write is passed in (OutboxStore.recordAttempts). On PostgreSQL a batch may be written while
 * the previous one is still on its way: they touch different rows, each under its own token.
 */

export interface RecorderDeps<C> {
  /** Writes a batch in one transaction; per item, whether its lease was still held. */
  write: (batch: C[]) => boolean[] | Promise<boolean[]>
  /** Asked before each write: false (another process holds the write lock) tries again after a backoff. */
  mayWrite: () => boolean
  /** A write that threw: nothing was recorded (the leases expire and the rows are sent again). */
  onError: (err: unknown) => void
  /** Answers per transaction at most (default 64). */
  batch?: number
  /** How long the first answer of a batch waits for others (default 2 ms). */
  waitMs?: number
  /** While the lock is taken, tries again after 1, 2, 4... up to this many ms (default 50). */
  maxBackoffMs?: number
}

/** Collects answered attempts and records them in batches. */
export class AttemptRecorder<C> {
  private readonly waiting: C[] = []
  private readonly done: ((kept: boolean) => void)[] = []
  private timer: ReturnType<typeof setTimeout> | null = null
  private backoffMs = 1
  private readonly batch: number
  private readonly waitMs: number
  private readonly maxBackoffMs: number

  constructor(private readonly deps: RecorderDeps<C>) {
    this.batch = deps.batch ?? 64
    this.waitMs = deps.waitMs ?? 2
    this.maxBackoffMs = deps.maxBackoffMs ?? 50
  }

  /** Answers waiting to be written. */
  get pending(): number {
    return this.waiting.length
  }

  /** Queues one answered attempt; resolves once written: true when the lease was still held. */
  record(c: C): Promise<boolean> {
    return new Promise((resolve) => {
      this.waiting.push(c)
      this.done.push(resolve)
      if (this.waiting.length >= this.batch) void this.flush()
      else this.timer ??= setTimeout(this.flushNow, this.waitMs)
    })
  }

  private readonly flushNow = () => void this.flush()

  /** Writes what waits now (unless the lock is taken: then after a backoff). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (this.waiting.length === 0) return
    if (!this.deps.mayWrite()) {
      // The answers wait here, their rows still leased (a crash now sends them again).
      this.timer = setTimeout(this.flushNow, this.backoffMs)
      this.backoffMs = Math.min(2 * this.backoffMs, this.maxBackoffMs)
      return
    }
    this.backoffMs = 1
    const batch = this.waiting.splice(0)
    const done = this.done.splice(0)
    let kept: boolean[]
    try {
      kept = await this.deps.write(batch)
    } catch (err) {
      this.deps.onError(err)
      kept = batch.map(() => false)
    }
    for (let i = 0; i < done.length; i++) done[i]!(kept[i]!)
  }
}
