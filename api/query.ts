/**
 * Query parameters read by hand, so that each refusal names the parameter with the code its
 * route documents (a schema would answer a generic message).
 */
import { badRequest } from './errors'

/**
 * A page size: decimal digits only (`Number` would also read `0x1`, `1e1`, `+1` and ` 1`), at
 * least 1, capped at `max` (a larger one is served as `max`, not refused); unset or empty is
 * `fallback`. Anything else is `400 <code>` naming `name`.
 */
export function pageSizeParam(text: string | undefined, opts: { name: string; fallback: number; max: number; code: string }): number {
  if (text === undefined || text === '') return opts.fallback
  // Any run of digits is a whole number, however long: a huge one is served as `max`.
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN
  if (!(n >= 1)) throw badRequest(opts.code, `\`${opts.name}\` must be a positive integer.`)
  return Math.min(n, opts.max)
}

/**
 * The request's URL. Bun hands over only the path (`/health`) when the `Host` header is missing
 * (an HTTP/1.0 health check) or is not a host (`a b`), and a URL that does not parse when its port
 * is out of range (`x:99999`): `new URL(request.url)` would throw and answer a 500 with a stack
 * trace. The router reads the path alone, so such a request is served as any other, on `localhost`.
 */
export function requestUrl(request: Request): URL {
  const raw = request.url
  if (URL.canParse(raw)) return new URL(raw)
  const path = raw.startsWith('/') ? raw : raw.slice(Math.max(0, raw.indexOf('/', raw.indexOf('//') + 2)))
  return new URL(path.startsWith('/') ? path : '/', 'http://localhost')
}
