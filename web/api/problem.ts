/** The api's refusals in words: one reader for its three error shapes (pure, so tests read it too). */

/** An API answer that was not a success, in words: the message and the code (or the batch reason and the status). */
export class ApiProblem extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly body: unknown) {
    super(message)
  }
  get text() {
    return `${this.message} (${this.code}, HTTP ${this.status})`
  }
}

/** Reads any of the api's error shapes: `{error, message}`, a batch list with a `reason`, or problem details. */
export function problemOf(status: number, body: unknown): ApiProblem {
  const b = body as Record<string, unknown> | Record<string, unknown>[] | undefined
  if (Array.isArray(b) && b[0] && typeof b[0].reason === 'string') return new ApiProblem(status, statusCode(status), b[0].reason as string, body)
  if (b && !Array.isArray(b) && typeof b.error === 'string') return new ApiProblem(status, b.error, String(b.message ?? ''), body)
  if (b && !Array.isArray(b) && typeof b.title === 'string') return new ApiProblem(status, 'problem', b.title, body)
  return new ApiProblem(status, statusCode(status), typeof body === 'string' && body ? body.slice(0, 300) : 'The server gave no reason.', body)
}

const statusCode = (status: number) =>
  ({ 400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 503: 'busy' } as Record<number, string>)[status] ?? `http_${status}`

