import { Elysia } from 'elysia'
import { prometheusContentType } from 'prom-client'
import { ping } from '../../db/ops'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../http/schemas'
import { Health } from './model'

export function opsRoutes({ db, metrics, config }: AppDeps) {
  return new Elysia({ detail: { tags: ['operations'] } })
    .get('/health', async () => {
      // On SQLite after any open transaction of this process, as every statement (db/transaction.ts).
      await ping(db)
      return { status: 'ok' as const }
    }, { response: { 200: Health }, detail: { summary: 'Liveness and database check (no auth)', security: [] } })
    .get(
      '/metrics',
      async () => new Response(await metrics.registry.metrics(), { headers: { 'content-type': metrics.registry.contentType } }),
      {
        // Any valid bearer token may read it; METRICS_PUBLIC=true opens it to scrapers without one.
        detail: {
          summary: config.metricsPublic ? 'Prometheus metrics (no auth: METRICS_PUBLIC=true)' : 'Prometheus metrics (any valid bearer token)',
          ...(config.metricsPublic ? { security: [] } : {}),
          responses: {
            200: { description: 'Prometheus text format', content: { [prometheusContentType]: { schema: { type: 'string' } } } },
            ...(config.metricsPublic ? {} : { 401: { description: '', content: { 'application/json': { schema: ErrorBody } } } }),
          },
        },
      },
    )
}
