/**
 * One error vocabulary. Domain code throws these; api/http/error-mapping.ts maps them (and Elysia's own
 * validation and parse errors) to the bodies spec.md fixes.
 */
import type { BatchFailure } from './documents/model'

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
 * the caller is told: the routes answer it `503` (api/http/error-mapping.ts), an MCP tool as its refusal.
 */
export function busyAnswer(log: { warn(msg: string): void }) {
  log.warn('the database stayed locked by another writer past the busy timeout')
  return { error: 'busy', message: 'The database stayed locked by another write (e.g. a large seed). Try again shortly.' }
}

export const badRequest = (code: string, message: string) => new AppError(400, code, message)
export const notFound = (message = 'Not found.') => new AppError(404, 'not_found', message)
export const batchFailure = (status: number, id: string, reason: string) =>
  new BatchError(status, { id, status: 1, reason })

/** Characters that do not show as themselves: controls, zero-width and bidirectional marks, line separators. */
const UNSEEN = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g
const HAS_UNSEEN = new RegExp(UNSEEN.source)

/**
 * Values a client sent, named back in an error message: at most `max`, each cut to 32
 * characters, the rest counted. A message never carries a client's long strings back whole.
 * A value that would not show as it is (empty, space around it, a control, zero-width or
 * bidirectional character, which would also reorder or hide the text around it in a UI or a
 * log) is quoted with those characters escaped: `Unknown locale(s): "".`, `"a\u0000b"`, `"\u202eabc"`.
 */
export function echoList(values: readonly string[], max = 5): string {
  const quoted = (v: string) => JSON.stringify(v).replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  const shown = (v: string) => (v === '' || v.trim() !== v || HAS_UNSEEN.test(v) ? quoted(v) : v)
  // Cut by code points: half an emoji would be a lone surrogate, which strict JSON decoders refuse.
  const cut = (v: string) => (v.length > 35 && [...v].length > 35 ? `${[...v].slice(0, 32).join('')}...` : v)
  const named = values.slice(0, max).map((v) => shown(cut(v)))
  return named.join(', ') + (values.length > max ? ` and ${values.length - max} more` : '')
}
