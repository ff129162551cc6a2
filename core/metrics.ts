import { Counter, Registry } from 'prom-client'
import type { Conn, Db } from '../db/client'
import { countersOf, incrementCounter } from '../db/queries/metrics'

/** The outcomes of spec.md's publish metrics ("States and transitions"). */
const OUTCOMES = ['ok', 'superseded', 'error'] as const
export type PublishOutcome = (typeof OUTCOMES)[number]

/** spec.md's `service.worker.publish.revisions`, as its persisted counter is named. */
export const WORKER_PUBLISH_REVISIONS = 'service_worker_publish_revisions'

/**
 * Prometheus metrics of one process. Prometheus names cannot contain dots, so spec.md's
 * `service.api.publish.revisions` is exported as `service_api_publish_revisions`.
 * A registry per app, not the global one, so tests can build several apps.
 */
export function createMetrics() {
  const registry = new Registry()
  const outcome = ['outcome'] as const
  let persisted: Db | null = null
  return {
    registry,
    apiPublishRevisions: new Counter({
      name: 'service_api_publish_revisions',
      help: 'Published Versions recorded by API publishes, by outcome (ok, superseded, error)',
      labelNames: outcome,
      registers: [registry],
    }),
    workerPublishRevisions: new Counter({
      name: WORKER_PUBLISH_REVISIONS,
      help: 'Published Versions recorded by scheduled publishes, by outcome (ok, superseded, error)',
      labelNames: outcome,
      registers: [registry],
      // Scheduled publishes run in the dispatcher, which serves no HTTP: they are counted in the
      // shared database (core/publish/scheduled.ts) and, once `readPersistedFrom` names it, read
      // from there at scrape time instead of from this process's own increments.
      async collect() {
        if (!persisted) return
        this.reset()
        for (const o of OUTCOMES) this.inc({ outcome: o }, 0)
        for (const [o, n] of Object.entries(await readPersisted(persisted, WORKER_PUBLISH_REVISIONS))) this.inc({ outcome: o }, n)
      },
    }),
    /** Makes counters other processes persist (`countPersisted`) come from `db` at scrape time: the api's /metrics. */
    readPersistedFrom(db: Db) {
      persisted = db
    },
  }
}

export type Metrics = ReturnType<typeof createMetrics>

/** Starts every outcome at zero so a scrape shows the series before the first publish. */
export function primePublishOutcomes(metrics: Metrics) {
  for (const o of OUTCOMES) {
    metrics.apiPublishRevisions.inc({ outcome: o }, 0)
    metrics.workerPublishRevisions.inc({ outcome: o }, 0)
  }
}

/**
 * Adds one to the persisted counter `name{outcome}` (table `metric_counters`). Pass the
 * transaction of what is counted, so the count commits (or rolls back) with it.
 */
export async function countPersisted(conn: Conn, name: string, outcome: PublishOutcome): Promise<void> {
  return await incrementCounter(conn, name, outcome)
}

/** The persisted counts of `name` by outcome (outcomes never counted are absent). */
export async function readPersisted(conn: Conn, name: string): Promise<Record<string, number>> {
  const rows = await countersOf(conn, name)
  return Object.fromEntries(rows.map((r) => [r.outcome, r.value]))
}
