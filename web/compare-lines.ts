/** The comparison of two document bodies, field by field (pure: the compare view and the restore dialog draw it). */
/** What a comparison reads of a document: its shared fields and its locales. */
export interface Comparable { fields?: Record<string, unknown>; locales?: Record<string, Record<string, unknown>> }

export type Change = 'same' | 'added' | 'removed' | 'changed'
export interface Line { section: string; field: string; left: unknown; right: unknown; change: Change }

/** The field-by-field comparison of two bodies; `locales` limits the locales shown, `fields: false` hides the non-localizable ones. */
export function compareDocs(left: Comparable | null, right: Comparable | null, opts: { locales?: string[]; fields?: boolean } = {}): Line[] {
  const lines: Line[] = []
  const push = (section: string, a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined) => {
    const names = [...new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])].sort()
    for (const field of names) {
      const l = a?.[field], r = b?.[field]
      const change: Change = l === undefined ? 'added' : r === undefined ? 'removed' : JSON.stringify(l) === JSON.stringify(r) ? 'same' : 'changed'
      lines.push({ section, field, left: l, right: r, change })
    }
  }
  if (opts.fields !== false) push('Fields for every language', left?.fields as Record<string, unknown>, right?.fields as Record<string, unknown>)
  const ll = (left?.locales ?? {}) as Record<string, Record<string, unknown>>, rl = (right?.locales ?? {}) as Record<string, Record<string, unknown>>
  const locales = opts.locales ?? [...new Set([...Object.keys(ll), ...Object.keys(rl)])].sort()
  for (const l of locales) push(`Language ${l}`, ll[l], rl[l])
  return lines
}

