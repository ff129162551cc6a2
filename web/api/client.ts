/**
 * The app's one way to the API: openapi-fetch over the types `bun run gen:client` generates
 * from the api's own OpenAPI document. The bearer token lives in sessionStorage (gone when the
 * tab closes), is sent only in the Authorization header, and is never put in a URL or a log.
 */
import createClient, { type Middleware } from 'openapi-fetch'
import type { components, paths } from './schema'

export type Schemas = components['schemas']
export type Doc = Schemas['DocumentBody']
export type Me = paths['/me']['get']['responses'][200]['content']['application/json']
export type MyTeam = Me['teams'][number]

const TOKEN_KEY = 'content-editor.token'

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value: string) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
}

const auth: Middleware = {
  onRequest({ request }) {
    const t = token.get()
    if (t) request.headers.set('authorization', `Bearer ${t}`)
    return request
  },
}

export const api = createClient<paths>({ baseUrl: location.origin })
api.use(auth)

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

/** The data of an openapi-fetch answer, or throws its problem (a batch list's refused item too). */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: Awaited<typeof call>
  try {
    result = await call
  } catch (e) {
    throw new ApiProblem(0, 'network', `The api could not be reached: ${(e as Error).message}`, null)
  }
  const { data, error, response } = result
  if (!response.ok) throw problemOf(response.status, error)
  const first = Array.isArray(data) ? (data[0] as { status?: number } | undefined) : undefined
  if (first && first.status === 1) throw problemOf(response.status, data)
  return data as T
}

/** A canonical id in a query string: openapi-fetch encodes it. */
export const draftOf = (id: string) => `${id}/draft`
