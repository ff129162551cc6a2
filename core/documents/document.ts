/**
 * Pure rules about document bodies: the publish stamp, dirty locales, equality of locales.
 */
import type { Document } from './model'

export const STAMP_FIELDS = ['__publishedBy', '__publishedAt'] as const
export const PROTECTED_FIELDS = [...STAMP_FIELDS, '__dirtyLocales'] as const

/** UTC round-trip timestamp (.NET format `o`): 7 fractional digits and `Z`. */
export function roundTripTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$10000Z')
}

/** A copy of `body` without the stamp, `__dirtyLocales`, `@metadata` and a client `Id`. */
export function stripStamp<T extends Record<string, unknown>>(body: T): Omit<T, (typeof PROTECTED_FIELDS)[number] | 'Id' | '@metadata'> {
  const { __publishedBy, __publishedAt, __dirtyLocales, Id, '@metadata': _m, ...rest } = body
  return rest
}

/** The stamp fields a stored body carries (none, or both). */
export function stampOf(body: Record<string, unknown>): { __publishedBy?: unknown; __publishedAt?: unknown } {
  return body.__publishedAt === undefined ? {} : { __publishedBy: body.__publishedBy, __publishedAt: body.__publishedAt }
}

/** Equality of stored values (per-locale objects are copied whole, so serialising is exact). */
export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * A draft's `__dirtyLocales` (spec.md "Other draft-related fields": the locales that carry
 * unpublished changes): every locale whose content differs between the canonical and the
 * draft, including one the draft added and one it dropped. A dropped locale is a change too:
 * publishing the draft takes it down (docs/api/restore.md#rules, rule 2), so it must not look clean.
 * Without a canonical every draft locale is dirty. The one function for every writer of a draft.
 */
export function dirtyLocales(draft: Pick<Document, 'locales'>, canonical: Pick<Document, 'locales'> | null): string[] {
  return changedLocales(canonical, draft)
}

/** Locales whose content differs between two versions of a document (added, removed or changed). */
export function changedLocales(before: Pick<Document, 'locales'> | null, after: Pick<Document, 'locales'>): string[] {
  const all = new Set([...Object.keys(before?.locales ?? {}), ...Object.keys(after.locales)])
  return [...all].filter((l) => !before || !same(before.locales[l], after.locales[l])).sort()
}

export function fieldsChanged(before: Pick<Document, 'fields'> | null, after: Pick<Document, 'fields'>): boolean {
  return !before || !same(before.fields, after.fields)
}

export const asDocument = (body: Record<string, unknown>) => body as unknown as Document
