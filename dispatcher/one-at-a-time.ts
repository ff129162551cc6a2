/**
 * One run at a time of an async step (the dispatcher's claims): a run asked while one is in
 * progress follows it, and every run asked meanwhile is merged into that one. On SQLite a claim
 * answers within the call and runs never overlap; on PostgreSQL the claim is a round trip, and
 * two at once would both count the send pool's budgets before either added its rows.
 */
export class OneAtATime<A> {
  private running: Promise<void> | null = null
  private next: A | null = null

  /** `merge(queued, asked)`: what the follow-up run is given when `asked` comes while `queued` waits (null: none yet). */
  constructor(private readonly step: (a: A) => Promise<void>, private readonly merge: (queued: A | null, asked: A) => A) {}

  /** Whether a run is in progress. */
  get busy(): boolean {
    return this.running !== null
  }

  /** Resolves once no run is in progress (never rejects). */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => {})
  }

  /** Runs `step(a)` now, or after the run in progress; resolves when the runs it joined are done (rejects with their error). */
  run(a: A): Promise<void> {
    if (this.running) {
      this.next = this.merge(this.next, a)
      return this.running
    }
    // `await` always suspends: `running` is set below before the `finally` can clear it.
    const running = (async () => {
      try {
        await this.step(a)
        for (let n = this.next; n !== null; n = this.next) {
          this.next = null
          await this.step(n)
        }
      } finally {
        this.running = null
        this.next = null
      }
    })()
    return (this.running = running)
  }
}
