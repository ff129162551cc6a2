/**
 * One error vocabulary. Domain code throws these; `app.ts` maps them (and Elysia's own
 * validation and parse errors) to the bodies spec.md fixes.
 */
import type { BatchFailure } from './content/model'

/** `{error, message}` with an HTTP status: read endpoints, auth, validation. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** A refusal answered as the one-item batch list of spec.md (restore, batch operations). */
export class BatchError extends Error {
  constructor(
    readonly status: number,
    readonly item: BatchFailure,
  ) {
    super(item.reason)
  }
}

/** RFC 7807 problem details: only restore's missing / empty / `null` body. */
export class ProblemError extends Error {
  constructor(
    readonly title: string,
    readonly errors: Record<string, string[]>,
  ) {
    super(title)
  }
}

/**
 * Another process held the write lock past busy_timeout (a long seed): a known, passing
 * condition for the caller to retry, not an internal error. Logs it as a warning and gives what
 * the caller is told: the routes answer it `503` (api/app.ts), an MCP tool as its refusal.
 */
export function busyAnswer(log: { warn(msg: string): void }) {
  log.warn('the database stayed locked by another writer past the busy timeout')
  return { error: 'busy', message: 'The database stayed locked by another write (e.g. a large seed). Try again shortly.' }
}

export const badRequest = (code: string, message: string) => new AppError(400, code, message)
export const notFound = (message = 'Not found.') => new AppError(404, 'not_found', message)
export const batchFailure = (status: number, id: string, reason: string) =>
  new BatchError(status, { id, status: 1, reason })

/**
 * Values a client sent, named back in an error message: at most `max`, each cut to 32
 * characters, the rest counted. A message never carries a client's long strings back whole.
 * A value that would not show (empty, or space around it) is quoted: `Unknown locale(s): "".`
 */
export function echoList(values: readonly string[], max = 5): string {
  const shown = (v: string) => (v === '' || v.trim() !== v ? JSON.stringify(v) : v)
  const named = values.slice(0, max).map((v) => shown(v.length > 35 ? `${v.slice(0, 32)}...` : v))
  return named.join(', ') + (values.length > max ? ` and ${values.length - max} more` : '')
}
