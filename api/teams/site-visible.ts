/**
 * spec.md "Rules for site.changed" 3: only content-type changes the site can see count.
 * Renaming (the label; the name is the route key), icon, hint, description and search/filter
 * settings are editor-only, so a change touching only those sends nothing.
 */

/** Keys of a content type, and of each of its fields, that the site never sees. */
export const EDITOR_ONLY_KEYS = new Set(['label', 'displayName', 'title', 'icon', 'hint', 'description'])
/** Search and filter settings of the editor, whatever they are called: `search*`, `filter*`. */
const SEARCH_OR_FILTER = /^(search|filter)/i

const editorOnly = (key: string) => EDITOR_ONLY_KEYS.has(key) || SEARCH_OR_FILTER.test(key)

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(value).sort()) {
      if (!editorOnly(k)) out[k] = strip((value as Record<string, unknown>)[k])
    }
    return out
  }
  return value
}

/** The site-visible part of a content type: everything but editor-only keys, keys sorted. */
export function siteVisible(definition: Record<string, unknown>): string {
  const { fields, ...rest } = definition
  return JSON.stringify({ ...(strip(rest) as object), fields: Array.isArray(fields) ? fields.map(strip) : strip(fields) })
}

/** Whether replacing `before` (null: a new type) by `after` changes what the site can see. */
export function isSiteVisibleChange(before: Record<string, unknown> | null, after: Record<string, unknown>): boolean {
  return before === null || siteVisible(before) !== siteVisible(after)
}
