/**
 * The `query-keys` plugin: every query parameter names one value. `?id=a&id=b` was read as `b`,
 * so a PATCH could land on another document than the client's first `id` said: a repeated key
 * is `400 invalid_body` on every route.
 */
import { Elysia } from 'elysia'
import { echoList } from '../../core/errors'
import { json } from './error-mapping'

export function queryKeys() {
  return new Elysia({ name: 'query-keys' }).onRequest(({ request }) => {
    const repeated = repeatedQueryKeys(new URL(request.url).searchParams)
    if (repeated.length > 0) {
      return json(400, { error: 'invalid_body', message: `A query parameter may be given once; repeated: ${echoList(repeated)}.` })
    }
  })
}

/** Query parameter names that occur more than once, each named once. */
export function repeatedQueryKeys(params: URLSearchParams): string[] {
  const seen = new Set<string>()
  const repeated = new Set<string>()
  for (const key of params.keys()) (seen.has(key) ? repeated : seen).add(key)
  return [...repeated]
}
