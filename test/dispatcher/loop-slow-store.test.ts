/**
 * The loop over a store that answers later, as PostgreSQL's does (a round trip per call): the
 * SQLite store with a random delay before each call, or with a claim held until the test lets it
 * answer. Claims must not overlap (two at once would
 * both count the pool's budgets), a claim that answers after stop() gives its rows back, and
 * every row still goes out once, never more than perWebhook at a time.
 */
import { sqliteOf } from '../dialect'
import { expect, test } from 'bun:test'
import { TEAM, TOKENS, waitFor } from '../helpers'
import { SqliteOutboxStore } from '../../db/outbox/sqlite-store'
import type { StoreClaimOptions } from '../../db/outbox/store'
import { countingReceiver, loopFixture } from './loop-fixture'

const fx = loopFixture()

/** SQLite, with up to `ms` of latency before each outbox call, counting claims in progress. */
class SlowStore extends SqliteOutboxStore {
  claiming = 0
  maxClaiming = 0
  claims = 0
  constructor(db: ConstructorParameters<typeof SqliteOutboxStore>[0], private readonly ms: number) {
    super(db)
  }
  private wait = () => Bun.sleep(Math.random() * this.ms)
  override async claim(opts: StoreClaimOptions) {
    this.claiming++
    this.maxClaiming = Math.max(this.maxClaiming, this.claiming)
    try {
      await this.wait()
      const rows = await super.claim(opts)
      if (rows.length > 0) this.claims++
      await this.wait() // the answer travels back too
      return rows
    } finally {
      this.claiming--
    }
  }
  override async recordAttempts(...args: Parameters<SqliteOutboxStore['recordAttempts']>) {
    await this.wait()
    return super.recordAttempts(...args)
  }
  override async releaseLease(...args: Parameters<SqliteOutboxStore['releaseLease']>) {
    await this.wait()
    return super.releaseLease(...args)
  }
  override async sendTarget(id: string) {
    await this.wait()
    return super.sendTarget(id)
  }
  override async webhookIds() {
    await this.wait()
    return super.webhookIds()
  }
}

const { enqueue, outboxState } = fx

test('a store that answers later: one claim at a time, every row sent once, at most perWebhook on the wire', async () => {
  const rx = countingReceiver(2)
  try {
    await fx.ctx.call('PATCH', `/teams/${TEAM}/webhooks/${fx.hook.id}`, { token: TOKENS.webhooks, body: { target: rx.url } })
    await enqueue(150)
    const store = new SlowStore(sqliteOf(fx.ctx.db), 3)
    const d = fx.dispatcher({ store, now: Date.now, perWebhook: 4, concurrency: 64, leaseMs: 60_000 })
    d.start()
    await waitFor(async () => rx.state.count >= 150 && (await outboxState()).length === 1, 20_000, 'all deliveries recorded')
    await d.stop()
    expect(store.maxClaiming).toBe(1)
    expect(store.claims).toBeGreaterThan(1)
    expect(rx.state.maxOpen).toBeLessThanOrEqual(4)
    expect({ count: rx.state.count, distinct: rx.state.ids.size }).toEqual({ count: 150, distinct: 150 })
    expect(await outboxState()).toEqual([{ status: 'delivered', n: 150, leased: 0 }])
  } finally {
    rx.stop()
  }
})

test('stop() while a claim is on its way: the rows it brings back are given back unsent, none left leased', async () => {
  const rx = countingReceiver(0)
  try {
    await fx.ctx.call('PATCH', `/teams/${TEAM}/webhooks/${fx.hook.id}`, { token: TOKENS.webhooks, body: { target: rx.url } })
    await enqueue(3)
    let open: () => void = () => {}
    const gate = new Promise<void>((resolve) => (open = resolve))
    /** A claim that answers when the test says so. */
    class GatedStore extends SqliteOutboxStore {
      asked = 0
      leased = 0
      override async claim(opts: StoreClaimOptions) {
        this.asked++
        await gate
        const rows = await super.claim(opts)
        this.leased += rows.length
        return rows
      }
    }
    const store = new GatedStore(sqliteOf(fx.ctx.db))
    const d = fx.dispatcher({ store, now: Date.now, leaseMs: 60_000 })
    d.start()
    await waitFor(() => store.asked > 0, 5000, 'the first claim on its way')
    const stopped = d.stop()
    open()
    await stopped
    expect(store.leased).toBe(3) // the claim did lease them, after stop() was called
    expect(rx.state.count).toBe(0)
    expect(await outboxState()).toEqual([{ status: 'pending', n: 3, leased: 0 }])
  } finally {
    rx.stop()
  }
})
