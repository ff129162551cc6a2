/**
 * `createApp(deps)`: the whole HTTP API without `listen`, so tests call `app.handle()`.
 */
import { Elysia } from 'elysia'
import { swagger } from '@elysiajs/swagger'
import { match, P } from 'ts-pattern'
import { AppError, BatchError, ProblemError } from './errors'
import { authenticate } from './auth'
import type { AppDeps } from './deps'
import { contentRoutes } from './content'
import { versionRoutes } from './versions'
import { publishRoutes } from './publish'
import { opsRoutes } from './ops'
import { restoreRoutes } from './restore'
import { snapshotRoutes } from './snapshots'
import { historyRoutes } from './history'
import { webhookRoutes } from './webhooks'
import { teamRoutes } from './teams'

/** Routes that need no bearer token. */
const PUBLIC_PATHS = /^\/(health|metrics|swagger)(\/|$)/

const json = (status: number, body: unknown, type = 'application/json') =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': `${type}; charset=utf-8` } })

/** Maps every thrown error to the body spec.md and contract.md fix for it. */
export function errorResponse(error: unknown, code: string | number, log: AppDeps['log']): Response {
  return match({ error, code })
    .with({ error: P.instanceOf(AppError) }, ({ error }) => json(error.status, { error: error.code, message: error.message }))
    .with({ error: P.instanceOf(BatchError) }, ({ error }) => json(error.status, [error.item]))
    .with({ error: P.instanceOf(ProblemError) }, ({ error }) =>
      json(400, { title: error.title, status: 400, errors: error.errors }, 'application/problem+json'),
    )
    .with({ code: 'PARSE' }, () => json(400, { error: 'malformed_json', message: 'The request body is not valid JSON.' }))
    .with({ code: 'VALIDATION' }, ({ error }) =>
      json(400, { error: 'invalid_body', message: validationMessage(error) }),
    )
    .with({ code: 'NOT_FOUND' }, () => json(404, { error: 'not_found', message: 'No such route.' }))
    .otherwise(({ error }) => {
      log.error({ err: error }, 'unhandled error')
      return json(500, { error: 'internal', message: 'Internal error.' })
    })
}

function validationMessage(error: unknown): string {
  const first = (error as { all?: { path?: string; message?: string }[] }).all?.[0]
  return first ? `Invalid request: ${first.path || 'body'} ${first.message ?? ''}`.trim() : 'Invalid request.'
}

export function createApp(deps: AppDeps) {
  // normalize: false so unknown properties are refused (400), not silently dropped.
  return new Elysia({ normalize: false, serve: { maxRequestBodySize: deps.config.maxBodyBytes } })
    .onRequest(({ request }) => {
      // Authenticate before parsing or validating: an anonymous caller learns nothing about bodies.
      const path = new URL(request.url).pathname
      if (!PUBLIC_PATHS.test(path)) {
        try {
          authenticate(deps.db, request.headers.get('authorization'))
        } catch (e) {
          return errorResponse(e, 'UNKNOWN', deps.log)
        }
      }
      const length = Number(request.headers.get('content-length') ?? 0)
      if (length > deps.config.maxBodyBytes) {
        return json(413, { error: 'payload_too_large', message: `The body exceeds ${deps.config.maxBodyBytes} bytes.` })
      }
    })
    .onError({ as: 'global' }, ({ error, code }) => errorResponse(error, code, deps.log))
    .use(
      swagger({
        path: '/swagger',
        documentation: {
          info: {
            title: 'Content service',
            version: '0.1.0',
            description: 'Published Versions, locale-selective restore and signed change webhooks.',
          },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
          security: [{ bearer: [] }],
        },
      }),
    )
    .use(opsRoutes(deps))
    .use(contentRoutes(deps))
    .use(versionRoutes(deps))
    .use(publishRoutes(deps))
    .use(restoreRoutes(deps))
    .use(snapshotRoutes(deps))
    .use(historyRoutes(deps))
    .use(webhookRoutes(deps))
    .use(teamRoutes(deps))
}

export type App = ReturnType<typeof createApp>
