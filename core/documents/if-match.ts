/**
 * `If-Match` and `If-None-Match` (RFC 9110 sections 13.1.1 and 13.1.2) checked against the
 * change vector of the document they name, `null` when there is none. Pure but for the 400 of
 * an If-Match that is no entity-tag list.
 */

import { AppError } from '../errors'

/** A comma-separated list of entity tags (empty elements allowed, RFC 9110 section 5.6.1). */
const TAG_LIST = /^(?:,\s*)*(?:W\/)?"[^"]*"(?:\s*(?:,\s*)+(?:W\/)?"[^"]*")*(?:\s*,)*$/

/**
 * A conditional header's entity tags: `*`, or the tags of a comma-separated list, each with
 * whether it is weak (`W/"..."`). A value without quotes, commas or spaces is taken as one
 * strong tag, as clients that drop them send it. Anything else is `null`: no entity tag list.
 */
function entityTags(header: string): '*' | { tag: string; weak: boolean }[] | null {
  const value = header.trim()
  if (value === '*') return '*'
  if (/^[^",\s]+$/.test(value)) return [{ tag: value, weak: false }]
  if (!TAG_LIST.test(value)) return null
  return [...value.matchAll(/(W\/)?"([^"]*)"/g)].map(([, weak, tag]) => ({ tag: tag!, weak: weak !== undefined }))
}

/**
 * Whether the condition holds: no header is no condition; `*` holds for any existing document;
 * a list holds when one of its strong entity tags is the change vector (a weak tag never does:
 * strong comparison).
 */
export function ifMatchHolds(header: string | undefined, current: string | null): boolean {
  if (header === undefined) return true
  const tags = entityTags(header)
  // A 409 would tell the client to re-read and retry, which it would do with the same header forever.
  if (tags === null) throw new AppError(400, 'invalid_if_match', 'If-Match must be `*`, or the ETag of a read ("<change vector>"), or a comma-separated list of such quoted tags.')
  if (tags === '*') return current !== null
  return tags.some((t) => !t.weak && t.tag === current)
}

/**
 * `If-None-Match` on a read: whether the client's copy is current, so the answer is `304 Not
 * Modified`. `*` matches any existing document; a list matches when one of its entity tags is
 * the change vector, compared weakly (`W/"x"` matches `"x"`: a proxy may weaken a tag).
 */
export function ifNoneMatchHits(header: string | undefined, current: string): boolean {
  if (header === undefined) return false
  const tags = entityTags(header)
  return tags === '*' || (tags?.some((t) => t.tag === current) ?? false)
}
