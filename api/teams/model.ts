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
