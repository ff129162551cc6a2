import { Counter, Registry } from 'prom-client'

/**
 * Prometheus metrics of one process. Prometheus names cannot contain dots, so spec.md's
 * `service.api.publish.revisions` is exported as `service_api_publish_revisions`.
 * A registry per app, not the global one, so tests can build several apps.
 */
export function createMetrics() {
  const registry = new Registry()
  const outcome = ['outcome'] as const
  return {
    registry,
    apiPublishRevisions: new Counter({
      name: 'service_api_publish_revisions',
      help: 'Published Versions recorded by API publishes, by outcome (ok, superseded, error)',
      labelNames: outcome,
      registers: [registry],
    }),
    workerPublishRevisions: new Counter({
      name: 'service_worker_publish_revisions',
      help: 'Published Versions recorded by scheduled publishes, by outcome (ok, superseded, error)',
      labelNames: outcome,
      registers: [registry],
    }),
  }
}

export type Metrics = ReturnType<typeof createMetrics>

/** Starts every outcome at zero so a scrape shows the series before the first publish. */
export function primePublishOutcomes(metrics: Metrics) {
  for (const o of ['ok', 'superseded', 'error']) {
    metrics.apiPublishRevisions.inc({ outcome: o }, 0)
    metrics.workerPublishRevisions.inc({ outcome: o }, 0)
  }
}
