import { Elysia, t } from 'elysia'
import type { AppDeps } from '../deps'

export function opsRoutes({ db, metrics }: AppDeps) {
  return new Elysia({ detail: { tags: ['operations'] } })
    .get('/health', () => {
      db.$client.query('SELECT 1').get()
      return { status: 'ok' as const }
    }, { response: { 200: t.Object({ status: t.Literal('ok') }) }, detail: { summary: 'Liveness and database check (no auth)', security: [] } })
    .get(
      '/metrics',
      async () => new Response(await metrics.registry.metrics(), { headers: { 'content-type': metrics.registry.contentType } }),
      {
        detail: {
          summary: 'Prometheus metrics', security: [],
          responses: { 200: { description: 'Prometheus text format', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } } },
        },
      },
    )
}
