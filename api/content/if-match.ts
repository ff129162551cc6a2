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

/**
 * `If-None-Match` (RFC 9110 section 13.1.2) on a read: whether the client's copy is current, so
 * the answer is `304 Not Modified`. `*` matches any existing document; a list matches when one
 * of its entity tags is the change vector, compared weakly (`W/"x"` matches `"x"`: a proxy may
 * weaken a tag). A value without quotes is taken as one tag, as for `If-Match`.
 */
export function ifNoneMatchHits(header: string | undefined, current: string): boolean {
  if (header === undefined) return false
  const value = header.trim()
  if (value === '*') return true
  if (!value.includes('"')) return value === current
  for (const [, tag] of value.matchAll(/(?:W\/)?"([^"]*)"/g)) {
    if (tag === current) return true
  }
  return false
}
