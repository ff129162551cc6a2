/**
 * Delivery metrics on the api's `/metrics`. Deliveries (and scheduled publishes) happen in the
 * dispatcher process, which serves no HTTP; both share the database, so the figures are read
 * from the outbox, the attempt log and `metric_counters` at scrape time and are right whichever
 * process (or restart) did the work.
 */
import { Gauge } from 'prom-client'
import { attemptsByResult, outboxByStatus } from '../../db/ops'
import type { AppDeps } from '../deps'

/**
 * Registers `service_webhook_outbox{status}` and `service_webhook_delivery_attempts{result}`,
 * and makes `service_worker_publish_revisions{outcome}` (the dispatcher's scheduled publishes,
 * counted in the database by core/publish/scheduled.ts) come from the database the same way.
 */
export function registerDeliveryMetrics({ db, metrics }: Pick<AppDeps, 'db' | 'metrics'>): void {
  metrics.readPersistedFrom(db)
  if (metrics.registry.getSingleMetric('service_webhook_outbox')) return
  new Gauge({
    name: 'service_webhook_outbox',
    help: 'Webhook deliveries (one per event and webhook) by status: pending, delivered, failed',
    labelNames: ['status'],
    registers: [metrics.registry],
    async collect() {
      // Read after any open transaction of this process (db/transaction.ts), then set at once.
      const rows = await outboxByStatus(db)
      this.reset()
      for (const s of ['pending', 'delivered', 'failed']) this.set({ status: s }, 0)
      for (const r of rows) this.set({ status: r.status }, r.n)
    },
  })
  new Gauge({
    name: 'service_webhook_delivery_attempts',
    help: 'Stored delivery attempts by result: 2xx, 3xx, 4xx, 5xx, error (timeout, network, refused)',
    labelNames: ['result'],
    registers: [metrics.registry],
    async collect() {
      const rows = await attemptsByResult(db)
      this.reset()
      for (const r of ['2xx', '3xx', '4xx', '5xx', 'error']) this.set({ result: r }, 0)
      for (const r of rows) this.set({ result: r.result }, r.n)
    },
  })
}
