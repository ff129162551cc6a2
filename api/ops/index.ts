import { Elysia } from 'elysia'
import type { AppDeps } from '../deps'

export function opsRoutes({ db, metrics }: AppDeps) {
  return new Elysia({ detail: { tags: ['operations'] } })
    .get('/health', () => {
      db.$client.query('SELECT 1').get()
      return { status: 'ok' }
    }, { detail: { summary: 'Liveness and database check (no auth)', security: [] } })
    .get(
      '/metrics',
      async () => new Response(await metrics.registry.metrics(), { headers: { 'content-type': metrics.registry.contentType } }),
      { detail: { summary: 'Prometheus metrics', security: [] } },
    )
}
