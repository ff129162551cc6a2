/**
 * `If-Match` (RFC 9110 section 13.1.1) checked against the change vector of the document it
 * guards, `null` when there is none. Pure.
 */

/**
 * Whether the condition holds: no header is no condition; `*` holds for any existing document;
 * a list holds when one of its strong entity tags is the change vector (a weak `W/"..."` tag
 * never does). A value without quotes is taken as one tag, as clients that drop them send it.
 */
export function ifMatchHolds(header: string | undefined, current: string | null): boolean {
  if (header === undefined) return true
  const value = header.trim()
  if (value === '*') return current !== null
  if (current === null) return false
  if (!value.includes('"')) return value === current
  for (const [, weak, tag] of value.matchAll(/(W\/)?"([^"]*)"/g)) {
    if (!weak && tag === current) return true
  }
  return false
}
