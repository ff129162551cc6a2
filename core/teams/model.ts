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

/** `PUT /teams/{teamId}/locales`. */
export const LocalesInput = t.Object(
  { locales: t.Array(LocaleCode, { minItems: 1, maxItems: 64 }), defaultLocale: LocaleCode },
  { additionalProperties: false, title: 'LocalesInput' },
)
/** `PUT /teams/{teamId}/localization`: fallback locale per locale. */
export const LocalizationInput = t.Object(
  { fallbacks: t.Record(t.String(), t.String(), { description: 'Locale code to the locale code it falls back to' }) },
  { additionalProperties: false, title: 'LocalizationInput' },
)
/** The team's locale settings, as both locale routes answer them. */
export const TeamLocales = t.Object(
  { locales: t.Array(t.String()), defaultLocale: t.String(), fallbacks: t.Record(t.String(), t.String()) },
  { additionalProperties: false, title: 'TeamLocales' },
)
/** `PUT /teams/{teamId}/content-types/{name}`: further keys (label, icon, hint...) are kept as given. */
export const ContentTypeInput = t.Object(
  {
    name: t.Optional(t.String()),
    collection: t.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
    urls: t.Optional(t.Boolean()),
    fields: t.Array(ContentTypeField, { maxItems: 500 }),
  },
  { additionalProperties: true, title: 'ContentTypeInput' },
)
export const ContentTypeResult = t.Object(
  { definition: t.Record(t.String(), t.Unknown()), siteChanged: t.Boolean({ description: 'Whether the change sends `site.changed` (`template`)' }) },
  { additionalProperties: false, title: 'ContentTypeResult' },
)
/** `PUT /teams/{teamId}/content-index`: the index definition, stored as given. */
export const ContentIndexDefinition = t.Record(t.String(), t.Unknown(), { title: 'ContentIndexDefinition' })
export const ContentIndexResult = t.Object({ indexGeneration: t.Integer() }, { additionalProperties: false, title: 'ContentIndexResult' })
/** `GET /teams/{teamId}/content-types/{name}`: the definition as stored, `urls` always given. */
export const ContentTypeDefinition = t.Object(
  { name: t.String(), collection: t.String(), urls: t.Boolean(), fields: t.Array(ContentTypeField) },
  { additionalProperties: true, title: 'ContentTypeDefinition' },
)
/** `GET /teams/{teamId}/content-index`: the deployed definition and how far the index job got. */
export const ContentIndexState = t.Object(
  {
    definition: t.Union([ContentIndexDefinition, t.Null()], { description: 'As last deployed; `null` before the first deploy' }),
    indexGeneration: t.Integer({ description: 'Bumped by each deploy' }),
    indexedGeneration: t.Integer({ description: 'The deploy the index job has caught up with; `site.changed` `index` waits for it' }),
  },
  { additionalProperties: false, title: 'ContentIndexState' },
)

/** `PUT /teams/{teamId}/features`: the History drawer's two flags (contract.md "Team settings"). */
export const TeamFeatures = t.Object(
  {
    history: t.Boolean({ description: 'The History drawer is shown at all' }),
    snapshots: t.Boolean({ description: 'With `history`: the drawer lists snapshots and offers "Share" on every row' }),
  },
  { additionalProperties: false, title: 'TeamFeatures' },
)

/** One team of `GET /me`: the caller's capabilities there, its locales and flags. */
export const MyTeam = t.Object({
  id: t.String(),
  capabilities: t.Array(t.String()),
  locales: t.Array(t.String()),
  defaultLocale: t.String(),
  features: TeamFeatures,
}, { additionalProperties: false, title: 'MyTeam' })

/** `GET /me`: who the bearer token belongs to and what they may do in each of their teams. */
export const Me = t.Object(
  {
    userId: t.String(),
    teams: t.Array(MyTeam),
  },
  { additionalProperties: false, title: 'Me' },
)
