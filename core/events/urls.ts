/**
 * Pure URL rules for webhook payloads (spec.md "Webhook event payload", contract.md "Page URLs").
 *
 * The path of a page in locale L is `/` + the slugs of its ancestors (via `fields.parent`) and
 * its own, joined by `/`; an empty slug is the root and adds no segment; a page (or ancestor)
 * without a string slug in L has no URL in L. A chain that cannot be read reliably (a cycle, an
 * ancestor the source cannot tell) makes the event `scope: "site"` rather than guessing.
 */
import { echoList } from '../errors'
import { isValidCanonicalId } from '../documents/ids'

/** What the URL rules need of one page. */
export interface PageNode {
  id: string
  /** UNRELIABLE: a `fields.parent` stored before parents were checked (not an id, not null). */
  parent: string | null | typeof UNRELIABLE
  /** Locale -> slug as stored (absent or null: no slug; anything else not a valid slug: unreliable). */
  slugs: Record<string, unknown>
  /** Live on the site: only published pages are served, so only they have previous URLs. */
  published: boolean
}

export interface UrlInput {
  documentId: string
  /** The content type has `urls: true`. */
  urlsEnabled: boolean
  locales: string[]
  defaultLocale: string
  /** The document as it was served before the change; null when it was not live (or not a page). */
  before: PageNode | null
  /**
   * The document after the change; null when it was taken down. Not `published` when it serves
   * no page any more (it became a type without URLs): no `urls`, but the event is no take-down.
   */
  after: PageNode | null
  /** The team's other documents, read as the rules ask for them (never the whole tree at once). */
  others: PageSource
}

/**
 * The page tree around the document, as the URL rules walk it: up through `get` (ancestors),
 * down through `liveChildrenOf` (pages below a moved or taken-down page).
 */
export interface PageSource {
  /**
   * Another document of the team as a page: a page of a type with URLs as it is stored; any
   * other document (a draft never published, a type without URLs), and an id naming none, a page
   * that serves nothing; `undefined` when the source cannot tell (a chain through it cannot be
   * read: `scope: "site"`). The database's source (events.ts) always can.
   */
  get(id: string): PageNode | undefined
  /** Up to `limit` live (published) pages whose `fields.parent` is `id`. */
  liveChildrenOf(id: string, limit: number): PageNode[]
}

/** A `PageSource` over nodes held in memory (tests; small trees). */
export function pagesFrom(nodes: ReadonlyMap<string, PageNode>): PageSource {
  return {
    get: (id) => nodes.get(id),
    liveChildrenOf: (id, limit) => [...nodes.values()].filter((n) => n.parent === id && n.published).slice(0, limit),
  }
}

export interface UrlResult {
  url: string
  urls: Record<string, string>
  previousUrls: string[]
  scope: 'document' | 'site'
}

/** spec.md "Limits": pages below a moved, renamed or taken-down page for precise URLs. */
export const MAX_PAGES_BELOW = 250
const MAX_DEPTH = 200

const UNRELIABLE = Symbol('unreliable')
type Lookup = (id: string) => PageNode | null | undefined
type Path = string | null | typeof UNRELIABLE

/** The longest slug accepted. */
export const MAX_SLUG_LENGTH = 200

/**
 * A slug is one path segment (or `''`, the root): no `/` (a leading one made `//host`, which a
 * receiver's `new URL(path, site)` reads as another host), no `?`, `#`, `%` or `\` (they change
 * what a URL means), no control character or lone surrogate, not `.` or `..`, no surrounding
 * whitespace. Unicode is welcome: paths are sent as text, a receiver percent-encodes them.
 */
export function isValidSlug(slug: string): boolean {
  if (slug === '') return true
  if (slug.length > MAX_SLUG_LENGTH || !slug.isWellFormed()) return false
  if (slug === '.' || slug === '..' || slug.trim() !== slug) return false
  return !/[\/?#%\\\u0000-\u001f\u007f]/.test(slug)
}

/** Builds a page node from a stored document body. */
export function toPageNode(id: string, body: Record<string, unknown>, published: boolean): PageNode {
  const fields = (body.fields ?? {}) as Record<string, unknown>
  const locales = (body.locales ?? {}) as Record<string, Record<string, unknown> | undefined>
  const slugs: Record<string, unknown> = {}
  for (const [l, v] of Object.entries(locales)) slugs[l] = v?.slug
  const parent = typeof fields.parent === 'string' && fields.parent !== '' ? fields.parent : isNoParent(fields.parent) ? null : UNRELIABLE
  return { id, parent, slugs, published }
}

/** `fields.parent` values that mean "a root page": absent, null or empty. */
export const isNoParent = (parent: unknown) => parent === undefined || parent === null || parent === ''

/**
 * Why a page's `fields.parent` or a locale's `slug` cannot be stored, or `null`
 * (docs/webhooks-receiving.md#page-urls): they become the paths webhooks send, so they are refused on the write
 * rather than guessed later. A slug is absent, null or one path segment; a parent a string id.
 */
export function pageFieldProblem(body: { fields?: Record<string, unknown>; locales?: Record<string, unknown> }): { code: 'invalid_slug' | 'invalid_body'; message: string } | null {
  const parent = body.fields?.parent
  // A sibling (`x/draft`), `../x` or an over-long id names no page: its children got `scope: "site"` on every event.
  if (!isNoParent(parent) && (typeof parent !== 'string' || !isValidCanonicalId(parent))) {
    return { code: 'invalid_body', message: '`fields.parent` must be the canonical id of the parent page, or null (or empty) for a root page.' }
  }
  const bad = Object.entries(body.locales ?? {}).filter(([, v]) => {
    const slug = (v as Record<string, unknown> | undefined)?.slug
    return slug !== undefined && slug !== null && (typeof slug !== 'string' || !isValidSlug(slug))
  }).map(([l]) => l)
  if (bad.length === 0) return null
  return {
    code: 'invalid_slug',
    message: `Slug of ${echoList(bad)}: a string, one path segment of at most ${MAX_SLUG_LENGTH} characters without /, ?, #, %, \\ or control characters, not . or .., no surrounding spaces.`,
  }
}

/**
 * Path of `id` in `locale`; `null` when it has none. `lookup` answering `null` means "known
 * to be gone" (a taken-down ancestor: no URL), `undefined` means "missing" (unreliable). An
 * ancestor that is not live (archived, unpublished, never published) serves nothing, so neither
 * do the pages below it: the same rule that gives a taken-down page's children no URL.
 */
export function pathOf(id: string, locale: string, lookup: Lookup): Path {
  const segments: string[] = []
  const seen = new Set<string>()
  let current: string | null = id
  while (current !== null) {
    if (seen.has(current) || seen.size > MAX_DEPTH) return UNRELIABLE
    seen.add(current)
    const node = lookup(current)
    if (node === undefined) return UNRELIABLE
    if (node === null || !node.published) return null
    const slug = node.slugs[locale]
    if (slug === undefined || slug === null) return null
    // Stored before slugs were checked (a number, `/x`): no path is guessed from it.
    if (typeof slug !== 'string' || !isValidSlug(slug)) return UNRELIABLE
    if (node.parent === UNRELIABLE) return UNRELIABLE
    if (slug !== '') segments.unshift(slug)
    current = node.parent
  }
  return '/' + segments.join('/')
}

/**
 * Published pages below `rootId` (breadth first), stopping once more than `limit` are found.
 * Nothing below a page that is not live is visited: it serves nothing before or after the change
 * (only `rootId` changes), so it neither adds a path nor counts toward the limit.
 */
function pagesBelow(rootId: string, others: PageSource, limit: number): PageNode[] {
  const found: PageNode[] = []
  const seen = new Set([rootId])
  const queue = [rootId]
  while (queue.length > 0 && found.length <= limit) {
    for (const child of others.liveChildrenOf(queue.shift()!, limit + 1 - found.length)) {
      if (seen.has(child.id)) continue
      seen.add(child.id)
      queue.push(child.id)
      found.push(child)
    }
  }
  return found
}

/** `urls`, `previousUrls`, `url` and `scope` of a document event (spec.md field table). */
export function computeUrls(input: UrlInput): UrlResult {
  const { documentId, before, after, others } = input
  if (!input.urlsEnabled) return { url: '', urls: {}, previousUrls: [], scope: 'document' }
  const locales = [input.defaultLocale, ...input.locales.filter((l) => l !== input.defaultLocale)]
  // Before: the document as it was; after: as it is, `null` for a taken-down document.
  const lookupBefore: Lookup = (id) => (id === documentId ? (before ?? undefined) : others.get(id))
  const lookupAfter: Lookup = (id) => (id === documentId ? after : others.get(id))
  let scope: UrlResult['scope'] = 'document'
  const oldPaths: string[] = []
  const urls: Record<string, string> = {}
  let moved = false

  for (const l of locales) {
    const was = before ? pathOf(documentId, l, lookupBefore) : null
    const is = after ? pathOf(documentId, l, lookupAfter) : null
    if (was === UNRELIABLE || is === UNRELIABLE) scope = 'site'
    if (typeof was === 'string' && was !== is) oldPaths.push(was)
    if (typeof is === 'string') urls[l] = is
    if (before && after && was !== is) moved = true
  }

  // Pages below a moved, renamed or taken-down page lose their old paths too.
  if (before && (moved || !after)) {
    const below = pagesBelow(documentId, others, MAX_PAGES_BELOW)
    if (below.length > MAX_PAGES_BELOW) scope = 'site'
    else {
      for (const page of below) {
        for (const l of locales) {
          const was = pathOf(page.id, l, lookupBefore)
          const is = pathOf(page.id, l, lookupAfter)
          if (was === UNRELIABLE || is === UNRELIABLE) scope = 'site'
          if (typeof was === 'string' && was !== is) oldPaths.push(was)
        }
      }
    }
  }

  // Per language: a path that no longer serves the page in ITS language is listed, even when
  // another language still uses the same text (`/about` in en and de, de taken down). Receivers
  // refresh each path on every host (spec.md), which for the other language does no harm.
  const previousUrls = [...new Set(oldPaths)]
  const url = after ? (urls[input.defaultLocale] ?? '') : (previousUrls[0] ?? '')
  return { url, urls: after ? urls : {}, previousUrls, scope }
}
