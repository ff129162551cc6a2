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
 * A route `transform` taking an empty `name=` (a form's blank choice) as left out, before the
 * query is validated: an empty `status=` or `eventType=` filters or picks nothing, as an empty
 * `limit=` or `before=` does.
 */
export const blankAsAbsent = (...names: string[]) => ({ query }: { query: unknown }) => {
  const q = query as Record<string, unknown>
  for (const name of names) if (q[name] === '') delete q[name]
}
