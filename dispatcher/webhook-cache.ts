/**
 * The webhook cache: a webhook as sends go out, read once, then kept until the dispatcher
 * claims again or another process commits (`PRAGMA data_version`, passed in as `version`).
 * A row claimed ahead may wait for its slot while an editor deletes the webhook or changes its
 * target or secret: it goes out as the webhook is when it is sent (or not at all), never to a
 * target or with a secret the answered PATCH or DELETE replaced. Only sends already on the
 * wire keep what they were sent with (and those started in the millisecond of the commit, as
 * the version is read at most once a millisecond).
 */
export class WebhookCache<W> {
  private readonly cache = new Map<string, W | null>()
  private version = -1
  private checkedAt = -1

  /**
   * @param load reads one webhook (null: deleted)
   * @param readVersion changes when another process commits (a read costs ~1.5 µs, so at most once a millisecond)
   */
  constructor(private readonly load: (id: string) => W | null, private readonly readVersion: () => number) {}

  /** Drops what another process may have changed since (`force`: everything, e.g. after a claim). */
  refresh(force: boolean, at: number): void {
    if (!force && at === this.checkedAt) return
    this.checkedAt = at
    const v = this.readVersion()
    if (force || v !== this.version) this.cache.clear()
    this.version = v
  }

  /** Webhook `id` as it is now, as far as the last refresh knows; null when deleted. */
  get(id: string): W | null {
    let webhook = this.cache.get(id)
    if (webhook === undefined) this.cache.set(id, (webhook = this.load(id)))
    return webhook
  }
}
