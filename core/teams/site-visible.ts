/**
 * spec.md "Rules for site.changed" 3: only content-type changes the site can see count.
 * Renaming (the label; the name is the route key), icon, hint, description and search/filter
 * settings are editor-only, so a change touching only those sends nothing. They are keys of the
 * type and of each of its fields; deeper down the same names are content the site shows.
 */

/** Keys of a content type, and of each of its fields, that the site never sees. */
export const EDITOR_ONLY_KEYS = new Set(['label', 'displayName', 'title', 'icon', 'hint', 'description'])
/** Search and filter settings of the editor, whatever they are called: `search*`, `filter*`. */
const SEARCH_OR_FILTER = /^(search|filter)/i

const editorOnly = (key: string) => EDITOR_ONLY_KEYS.has(key) || SEARCH_OR_FILTER.test(key)

/** `value` with object keys sorted at every depth: the order keys were sent in is no change. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted)
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]))
  }
  return value
}

/**
 * An object without its own editor-only keys. Only the type's and each field's: deeper down a
 * `label` or `title` is content the site renders (a select option's label, a default text).
 */
function withoutEditorOnly(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).filter(([k]) => !editorOnly(k)))
}

/** A field as the site sees it: `localizable` left out is `localizable: false` (contract.md "Documents"). */
function visibleField(field: unknown): unknown {
  const visible = withoutEditorOnly(field)
  if (!visible || typeof visible !== 'object' || Array.isArray(visible)) return visible
  const { localizable, ...rest } = visible as Record<string, unknown>
  return localizable === false ? rest : visible
}

/**
 * The site-visible part of a content type: everything but editor-only keys, keys sorted, a
 * field's `localizable: false` as if left out (the caller does the same for the type's `urls`).
 */
export function siteVisible(definition: Record<string, unknown>): string {
  const { fields, ...rest } = definition
  const visibleFields = Array.isArray(fields) ? fields.map(visibleField) : fields
  return JSON.stringify(sorted({ ...(withoutEditorOnly(rest) as object), fields: visibleFields }))
}

/** Whether replacing `before` (null: a new type) by `after` changes what the site can see. */
export function isSiteVisibleChange(before: Record<string, unknown> | null, after: Record<string, unknown>): boolean {
  return before === null || siteVisible(before) !== siteVisible(after)
}
