/**
 * The restore merge of spec.md "Restore semantics (shared with snapshot restore)", as pure
 * functions: no I/O, no clock. The service loads the inputs, calls these, and writes.
 */
import type { ActivityEntry } from '../documents/activity'
import type { Document } from '../documents/model'

type Locales = Document['locales']

export interface MergeInput {
  /** The version or snapshot body, stamp already stripped. */
  source: Document
  /** The draft as it was read before the restore, or null when there is none (rule 4). */
  draft: Document | null
  /** The canonical (live or not), or null (a document that only ever had a draft). */
  canonical: Document | null
  /**
   * Rule 1's "published since the source was taken": the locales of the Published Versions made
   * after the source (after the version; after the snapshot's creation), none when the canonical
   * is not live. A whole restore takes back only those of the canonical's locales the source lacks.
   */
  publishedSince: readonly string[]
  /**
   * Whether the canonical is live (published). When it is not, every locale of a draft is dirty
   * (docs/api/content.md#dirty-locales), so a locale rule 2 takes from it is dirty too.
   */
  live: boolean
  /** `null`: whole-draft restore (rule 1). Otherwise the non-empty, validated list (rule 2). */
  locales: string[] | null
  /** The team's configured locales; only used to give the result a stable key order. */
  configured: readonly string[]
  /** `<document_id>/draft`. */
  draftId: string
}

const has = (locales: Locales | undefined, l: string) => !!locales && Object.prototype.hasOwnProperty.call(locales, l)

/**
 * The new draft body. Per-locale objects are copied by reference, never rebuilt, so a locale
 * that is put back is JSON-identical to where it came from.
 */
export function mergeRestore({ source, draft, canonical, publishedSince, live, locales, configured, draftId }: MergeInput): Document {
  const { __dirtyLocales: _d, __publishedBy: _b, __publishedAt: _a, ...base } = source
  if (locales === null) {
    // Rule 1: every source locale overwrites; a locale published since the source was taken
    // (absent from the source) comes from the live canonical; nothing else survives. A locale
    // that was live when the source was taken and is absent from it stays out: a snapshot of a
    // draft that dropped French restores that draft, French dropped (it came back before).
    const out: Locales = {}
    const since = new Set(publishedSince)
    for (const l of Object.keys(canonical?.locales ?? {})) if (!has(source.locales, l) && since.has(l)) out[l] = canonical!.locales[l]!
    for (const l of Object.keys(source.locales)) out[l] = source.locales[l]!
    return { ...base, id: draftId, locales: ordered(out, configured), __dirtyLocales: Object.keys(source.locales).sort() }
  }
  // Rule 2. Listed locales take the source's state. A listed locale the source does not carry:
  // if the draft carried it, it takes the source's state, "absent" (removed from the draft);
  // if the draft did not either, spec.md's "neither carried" sentence applies: it comes from
  // the canonical (so restoring a locale a version lacked never takes a live locale down).
  // Every unlisted locale the draft carried is put back as it was (never re-derived); an
  // unlisted locale the draft did not carry comes from the canonical when it is there.
  const listed = new Set(locales)
  const out: Locales = {}
  const fromCanonical: string[] = []
  const take = (l: string) => {
    out[l] = canonical!.locales[l]!
    fromCanonical.push(l)
  }
  const universe = new Set([...configured, ...Object.keys(draft?.locales ?? {}), ...Object.keys(canonical?.locales ?? {}), ...locales])
  for (const l of universe) {
    if (listed.has(l)) {
      if (has(source.locales, l)) out[l] = source.locales[l]!
      else if (!has(draft?.locales, l) && has(canonical?.locales, l)) take(l)
    } else if (has(draft?.locales, l)) {
      out[l] = draft!.locales[l]!
    } else if (has(canonical?.locales, l)) {
      take(l)
    }
  }
  // The union of spec.md of the pre-restore dirty set and the listed locales; a locale taken from a
  // canonical that is not live is not on the site either, so it is dirty like the rest of such
  // a draft (a draft created from an unpublished document would otherwise hide its locales).
  const dirty = new Set([...(draft?.__dirtyLocales ?? []), ...locales, ...(live ? [] : fromCanonical)])
  // Non-localizable `fields` (and the content type) always come from the source.
  return { ...base, id: draftId, locales: ordered(out, configured), __dirtyLocales: [...dirty].sort() }
}

/** Configured locales first in their configured order, then any others sorted. */
function ordered(locales: Locales, configured: readonly string[]): Locales {
  const keys = Object.keys(locales)
  const rest = keys.filter((l) => !configured.includes(l)).sort()
  const out: Locales = {}
  for (const l of [...configured.filter((l) => keys.includes(l)), ...rest]) out[l] = locales[l]!
  return out
}

/**
 * Rule 3: prune the `EDIT` entries the restore made obsolete, then append the one restore entry.
 * A locale list prunes `EDIT` entries of the listed locales only. A whole-draft restore replaces
 * every locale of the draft, so it prunes every `EDIT` entry, locale-less ones included.
 * Earlier `APPLY_*` and `PUBLISH` entries are history and stay.
 */
export function pruneAndAppend(entries: readonly ActivityEntry[], locales: string[] | null, entry: ActivityEntry): ActivityEntry[] {
  const listed = locales && new Set(locales)
  const kept = entries.filter((e) => e.kind !== 'EDIT' || (listed !== null && (e.locale === null || !listed.has(e.locale))))
  return [...kept, entry]
}

export const MAX_LOCALES = 64
export const MAX_NAMED_UNKNOWN = 5

/**
 * The locale-list refusals of spec.md's restore error table (all batch-list 400s), in order:
 * empty list, more than 64 entries (nothing echoed), codes outside the team's set (at most
 * five named). Returns the reason, or null when the list is acceptable.
 */
export function localeListProblem(locales: string[], configured: readonly string[]): string | null {
  if (locales.length === 0) return 'The locales list is empty; pass null to restore every locale.'
  if (locales.length > MAX_LOCALES) return 'Too many locales in request.'
  const unknown = [...new Set(locales.filter((l) => !configured.includes(l)))]
  if (unknown.length === 0) return null
  // Codes are echoed, so each is cut short: a reason never carries a client's long string back.
  const named = unknown.slice(0, MAX_NAMED_UNKNOWN).map((l) => JSON.stringify(l.length > 35 ? `${l.slice(0, 32)}...` : l))
  const more = unknown.length > MAX_NAMED_UNKNOWN ? ` and ${unknown.length - MAX_NAMED_UNKNOWN} more` : ''
  return `Unknown locale(s) for this team: ${named.join(', ')}${more}.`
}
