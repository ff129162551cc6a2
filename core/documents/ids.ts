/**
 * Document ids of spec.md: a canonical id and its siblings `<id>/draft`, `<id>/scheduled`,
 * `<id>/snapshot/<token>`, plus our `<id>/activity` document. Pure functions.
 */
export type IdKind = 'canonical' | 'draft' | 'scheduled' | 'snapshot' | 'activity'

export interface ParsedId {
  kind: IdKind
  canonicalId: string
}

/** Longest id accepted anywhere; longer ones are refused (writes) or unknown (reads). */
export const MAX_ID_LENGTH = 512
/**
 * Longest canonical id: its longest sibling, `<id>/snapshot/<22-character token>`, must still
 * fit MAX_ID_LENGTH (a 500-character canonical had a draft but no possible snapshot).
 */
export const MAX_CANONICAL_ID_LENGTH = MAX_ID_LENGTH - '/snapshot/'.length - 22

// Any token counts for classifying an id (spec.md rejects every sibling id where a canonical is
// expected); the tokens we issue are 22 base64url characters (core/snapshots/service.ts).
const SNAPSHOT = /^(.+)\/snapshot\/([^/]+)$/

export function parseId(id: string): ParsedId {
  const snapshot = SNAPSHOT.exec(id)
  if (snapshot) return { kind: 'snapshot', canonicalId: snapshot[1]! }
  for (const kind of ['draft', 'scheduled', 'activity'] as const) {
    if (id.endsWith(`/${kind}`)) return { kind, canonicalId: id.slice(0, -(kind.length + 1)) }
  }
  return { kind: 'canonical', canonicalId: id }
}

/**
 * Whether `id` can be a key in the store at all. SQLite keeps text as UTF-8, which cannot encode
 * a lone UTF-16 surrogate: `a\ud800` and `a\udfff` would both be stored and looked up as
 * `a\ufffd`, so one id would reach another's document. Such an id names no document.
 */
export function isStorableId(id: string): boolean {
  return id.length <= MAX_ID_LENGTH && id.isWellFormed()
}

/**
 * A canonical id is 1-480 characters of path segments: no empty, `.` or `..` segment, no
 * backslash or control character, no lone surrogate, and no reserved sibling suffix. Unicode
 * is welcome. A last segment `snapshot` is reserved too: `<id>/draft` of `a/snapshot` would
 * read as snapshot `draft` of `a`.
 */
export function isValidCanonicalId(id: string): boolean {
  if (id.length === 0 || id.length > MAX_CANONICAL_ID_LENGTH || !isStorableId(id)) return false
  if (id.endsWith('/snapshot')) return false
  if (/[\u0000-\u001f\u007f\\]/.test(id)) return false
  if (id.split('/').some((s) => s === '' || s === '.' || s === '..' || s.trim() !== s)) return false
  return parseId(id).kind === 'canonical' && !id.includes('/snapshot/')
}

/**
 * The `id` of a batch result item (spec.md "Batch result item": the canonical document id):
 * for a draft, scheduled or snapshot sibling of a canonical, that canonical; any other id as
 * given. The item's reason still says that a sibling was given.
 */
export function batchItemId(id: string): string {
  const { kind, canonicalId } = parseId(id)
  const sibling = kind === 'draft' || kind === 'scheduled' || kind === 'snapshot'
  return sibling && isValidCanonicalId(canonicalId) ? canonicalId : id
}

export const draftId = (canonicalId: string) => `${canonicalId}/draft`
export const scheduledId = (canonicalId: string) => `${canonicalId}/scheduled`
export const activityId = (canonicalId: string) => `${canonicalId}/activity`
