/** TypeBox schemas shared by the team settings routes and the CLI seed. */
import { Type as t } from '@sinclair/typebox'

/**
 * A locale code: a BCP 47-style tag (`en`, `de-CH`, `zh-Hant-TW`; `_` accepted for `en_US`
 * habits). Codes become keys of every document's `locales` object and parts of paths and
 * headers downstream, so `__proto__`, `../x`, spaces and the empty string are refused.
 */
export const LocaleCode = t.String({
  minLength: 2,
  maxLength: 35,
  pattern: '^[A-Za-z]{2,8}([_-][A-Za-z0-9]{1,8})*$',
  description: 'A BCP 47-style locale code, e.g. `en`, `de-CH`, `zh-Hant-TW`',
})

/**
 * A content type's name (the `{name}` of its route, the `contentType` of documents): a letter,
 * then letters, digits, `_` or `-`. `..%2fx`, NUL, `__proto__` and unicode look-alikes are refused.
 */
export const ContentTypeName = t.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z][A-Za-z0-9_-]*$',
  description: 'A letter, then letters, digits, `_` or `-` (at most 100), e.g. `page`, `blog-post`',
})

/** A field of a content type: its name is one line of text, at most 100 characters. */
export const ContentTypeField = t.Object(
  { name: t.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]+$' }), localizable: t.Optional(t.Boolean()) },
  { additionalProperties: true },
)

/** Why a content type's fields cannot be stored (a lone surrogate, a repeated name), or `null`. */
export function fieldsProblem(fields: readonly { name: string }[]): string | null {
  const names = new Set<string>()
  for (const { name } of fields) {
    if (!name.isWellFormed()) return 'A field name is not well-formed text (a lone surrogate).'
    if (names.has(name)) return `Field ${JSON.stringify(name.slice(0, 100))} is listed twice.`
    names.add(name)
  }
  return null
}
