/**
 * The app's one way to the API: openapi-fetch over the types `bun run gen:client` generates
 * from the api's own OpenAPI document. The bearer token lives in sessionStorage (gone when the
 * tab closes), is sent only in the Authorization header, and is never put in a URL or a log.
 */
import createClient, { type Middleware } from 'openapi-fetch'
import type { components, paths } from './schema'
import { ApiProblem, problemOf } from './problem'

export { ApiProblem, problemOf }

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
