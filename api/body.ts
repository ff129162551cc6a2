/**
 * Rules every request body meets before any schema or handler looks at it: JSON only, and
 * nested at most MAX_BODY_DEPTH deep.
 */
import { AppError } from './errors'

/** JSON bodies nest at most this deep: rich text trees stay far below, and nothing recurses into a stack overflow. */
export const MAX_BODY_DEPTH = 100

/** Whether `value` nests deeper than `max` (walked without recursion, so any depth is safe to check). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    if (depth >= max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
  }
  return false
}

/** Throws `400 invalid_body` for a parsed body nested deeper than MAX_BODY_DEPTH. */
export function checkDepth(body: unknown): void {
  if (body !== undefined && nestsDeeperThan(body, MAX_BODY_DEPTH)) {
    throw new AppError(400, 'invalid_body', `The body nests deeper than ${MAX_BODY_DEPTH} levels.`)
  }
}

/**
 * Whether a request's declared media type is JSON (`application/json` or `application/*+json`,
 * any case, any parameters). A form or multipart body would otherwise be parsed into fields
 * and stored as data.
 */
export function isJsonMediaType(contentType: string | null): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)
}
