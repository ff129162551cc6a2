/**
 * SQLite's `json_extract` as PostgreSQL answers it (db/pg/queries/documents.ts): its path turned
 * into `#>` keys, and the value it extracts turned into what json_extract returns.
 */

/**
 * The keys of a JSON path as SQLite's json_extract takes it (`$.locales."en".title`), for `#>`:
 * `.name` and `."quoted name"` steps (the only ones core/content/list.ts builds).
 */
export function jsonPathKeys(path: string): string[] {
  if (!path.startsWith('$')) throw new Error(`Not a JSON path: ${path}`)
  const keys: string[] = []
  const step = /\.(?:"([^"]*)"|([^."[\]]+))/y
  step.lastIndex = 1
  while (step.lastIndex < path.length) {
    const m = step.exec(path)
    if (!m) throw new Error(`A JSON path step this twin does not read: ${path}`)
    keys.push(m[1] ?? m[2]!)
  }
  return keys
}

/**
 * A JSON value (its text, from `json` `->` or `#>`) as SQLite's json_extract answers it: SQL NULL
 * for JSON null or a missing key, a string as itself, a number as a number, true/false as 1/0,
 * an object or array as its JSON text.
 */
export function asJsonExtract(text: string | null): unknown {
  if (text === null) return null
  const v: unknown = JSON.parse(withNul(text))
  if (v === null || typeof v === 'string' || typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  return JSON.stringify(v)
}

/**
 * JSON text read through nul_safe_json (migration 0002) with its NULs back: each `\ufdd0` escape
 * not itself escaped is `\u0000` again. JSON.stringify, which writes every stored body, never
 * writes U+FDD0 as an escape, so only the function's own can be there.
 */
export const withNul = (text: string) => (text.includes('\\ufdd0') ? text.replace(/(?<!\\)((?:\\\\)*)\\ufdd0/g, '$1\\u0000') : text)
