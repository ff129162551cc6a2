import { expect, test } from 'bun:test'
import { computeUrls, isValidSlug, MAX_PAGES_BELOW, pagesFrom, pathOf, toPageNode, type PageNode, type UrlInput } from '../../../core/events/urls'

const page = (id: string, parent: string | null, slugs: Record<string, unknown>, published = true): PageNode => ({ id, parent, slugs, published })
const tree = (...nodes: PageNode[]) => pagesFrom(new Map(nodes.map((n) => [n.id, n])))
const home = page('home', null, { en: '', de: '', fr: '' })
const base = (over: Partial<UrlInput>): UrlInput => ({
  documentId: 'about', urlsEnabled: true, locales: ['en', 'de', 'fr'], defaultLocale: 'en',
  before: null, after: null, others: tree(home), ...over,
})

test('pathOf: root, nested, missing slug, cycle and missing ancestor', () => {
  const t = tree(home, page('a', 'home', { en: 'a' }), page('b', 'a', { en: 'b', de: 'b' }), page('x', 'y', { en: 'x' }), page('y', 'x', { en: 'y' }), page('orphan', 'gone', { en: 'o' }))
  const lookup = (id: string) => t.get(id)
  expect(pathOf('home', 'en', lookup)).toBe('/')
  expect(pathOf('b', 'en', lookup)).toBe('/a/b')
  expect(pathOf('b', 'de', lookup)).toBeNull() // ancestor has no slug in de
  expect(pathOf('b', 'fr', lookup)).toBeNull()
  expect(typeof pathOf('x', 'en', lookup)).toBe('symbol') // cycle
  expect(typeof pathOf('orphan', 'en', lookup)).toBe('symbol') // missing ancestor
  // An ancestor that is not live (archived, unpublished) serves nothing below it.
  const hidden = tree(home, page('p', 'home', { en: 'p' }, false), page('k', 'p', { en: 'k' }))
  expect(pathOf('k', 'en', (id) => hidden.get(id))).toBeNull()
})

test('a slug stored before slugs were checked (`/evil.example`, `a?b`) gives no guessed path: scope "site"', () => {
  for (const slug of ['/evil.example', 'a?b', '..']) {
    const t = tree(home, page('bad', 'home', { en: slug }), page('child', 'bad', { en: 'c' }))
    expect(typeof pathOf('child', 'en', (id) => t.get(id))).toBe('symbol')
    const r = computeUrls(base({ documentId: 'bad', after: page('bad', 'home', { en: slug }), others: tree(home) }))
    expect(r.scope).toBe('site')
    expect(Object.values(r.urls).some((u) => u.startsWith('//'))).toBe(false)
  }
  // Stored before types were checked: a number slug, an object parent. No path is guessed.
  const typed = tree(home, page('num', 'home', { en: 123 }), toPageNode('obj', { fields: { parent: { x: 1 } }, locales: { en: { slug: 'o' } } }, true))
  expect(typeof pathOf('num', 'en', (id) => typed.get(id))).toBe('symbol')
  expect(typeof pathOf('obj', 'en', (id) => typed.get(id))).toBe('symbol')
  expect(toPageNode('root', { fields: { parent: null }, locales: {} }, true).parent).toBeNull()
  const r = computeUrls(base({ documentId: 'num', after: page('num', 'home', { en: 123 }), others: typed }))
  expect(r.scope).toBe('site')
  expect(isValidSlug('über uns')).toBe(true)
  expect(isValidSlug('')).toBe(true)
})

const cases: [string, Partial<UrlInput>, ReturnType<typeof computeUrls>][] = [
  ['first publish: urls per locale, no previous', { after: page('about', 'home', { en: 'about', de: 'ueber' }) },
    { url: '/about', urls: { en: '/about', de: '/ueber' }, previousUrls: [], scope: 'document' }],
  ['republish without URL change', { before: page('about', 'home', { en: 'about' }), after: page('about', 'home', { en: 'about' }) },
    { url: '/about', urls: { en: '/about' }, previousUrls: [], scope: 'document' }],
  ['new slug in one locale', { before: page('about', 'home', { en: 'about', de: 'about' }), after: page('about', 'home', { en: 'about', de: 'ueber' }) },
    { url: '/about', urls: { en: '/about', de: '/ueber' }, previousUrls: ['/about'], scope: 'document' }],
  // Per language: /about no longer serves the page in de, although en still uses that text
  // (spec.md: paths that served the document and no longer do; refreshed on every host).
  ['locale taken down whose path another locale still uses', { before: page('about', 'home', { en: 'about', de: 'about' }), after: page('about', 'home', { en: 'about' }) },
    { url: '/about', urls: { en: '/about' }, previousUrls: ['/about'], scope: 'document' }],
  ['slugs swapped between locales', { before: page('about', 'home', { en: 'a', de: 'b' }), after: page('about', 'home', { en: 'b', de: 'a' }) },
    { url: '/b', urls: { en: '/b', de: '/a' }, previousUrls: ['/a', '/b'], scope: 'document' }],
  ['new slug everywhere', { before: page('about', 'home', { en: 'about', de: 'ueber' }), after: page('about', 'home', { en: 'about-us', de: 'ueber-uns' }) },
    { url: '/about-us', urls: { en: '/about-us', de: '/ueber-uns' }, previousUrls: ['/about', '/ueber'], scope: 'document' }],
  ['slug removed in a locale', { before: page('about', 'home', { en: 'about', fr: 'a-propos' }), after: page('about', 'home', { en: 'about' }) },
    { url: '/about', urls: { en: '/about' }, previousUrls: ['/a-propos'], scope: 'document' }],
  ['no default-locale URL: url is empty', { after: page('about', 'home', { de: 'ueber' }) },
    { url: '', urls: { de: '/ueber' }, previousUrls: [], scope: 'document' }],
  ['moved under another parent, with children', {
    before: page('about', 'home', { en: 'about' }), after: page('about', 'company', { en: 'about' }),
    others: tree(home, page('company', 'home', { en: 'company' }), page('team', 'about', { en: 'team' }), page('jobs', 'team', { en: 'jobs' }), page('draft', 'about', { en: 'draft' }, false)),
  }, { url: '/company/about', urls: { en: '/company/about' }, previousUrls: ['/about', '/about/team', '/about/team/jobs'], scope: 'document' }],
  ['taken down: every own path and the paths below', {
    before: page('about', 'home', { en: 'about', de: 'ueber' }), after: null,
    others: tree(home, page('team', 'about', { en: 'team' })),
  }, { url: '/about', urls: {}, previousUrls: ['/about', '/ueber', '/about/team'], scope: 'document' }],
  ['taken down without any URL', { before: page('about', 'home', {}), after: null }, { url: '', urls: {}, previousUrls: [], scope: 'document' }],
  ['content type without URLs', { urlsEnabled: false, before: page('about', 'home', { en: 'a' }), after: page('about', 'home', { en: 'b' }) },
    { url: '', urls: {}, previousUrls: [], scope: 'document' }],
  ['missing ancestor: site scope', { after: page('about', 'nowhere', { en: 'about' }) }, { url: '', urls: {}, previousUrls: [], scope: 'site' }],
  ['cycle: site scope', { after: page('about', 'loop', { en: 'about' }), others: tree(home, page('loop', 'about', { en: 'loop' })) },
    { url: '', urls: {}, previousUrls: [], scope: 'site' }],
  ['published under an archived parent: no URL, as the archive event said (its previousUrls listed the child)', {
    documentId: 'k', after: page('k', 'p', { en: 'k' }), others: tree(home, page('p', 'home', { en: 'p' }, false)),
  }, { url: '', urls: {}, previousUrls: [], scope: 'document' }],
  ['became a type without URLs (not live as a page after): own and child paths are previous, no urls', {
    before: page('about', 'home', { en: 'about' }), after: page('about', 'home', { en: 'about' }, false),
    others: tree(home, page('team', 'about', { en: 'team' })),
  }, { url: '', urls: {}, previousUrls: ['/about', '/about/team'], scope: 'document' }],
  ['home page itself', { documentId: 'home', before: home, after: home, others: tree() }, { url: '/', urls: { en: '/', de: '/', fr: '/' }, previousUrls: [], scope: 'document' }],
]

for (const [name, input, expected] of cases) {
  test(`computeUrls: ${name}`, () => expect(computeUrls(base(input))).toEqual(expected))
}

test(`more than ${MAX_PAGES_BELOW} pages below a renamed page: site scope, own paths still listed`, () => {
  const below = Array.from({ length: MAX_PAGES_BELOW + 1 }, (_, i) => page(`p${i}`, 'about', { en: `p${i}` }))
  const input = base({ before: page('about', 'home', { en: 'about' }), after: page('about', 'home', { en: 'about-us' }), others: tree(home, ...below) })
  expect(computeUrls(input)).toEqual({ url: '/about-us', urls: { en: '/about-us' }, previousUrls: ['/about'], scope: 'site' })
  const exactly = base({ ...input, others: tree(home, ...below.slice(1)) })
  expect(computeUrls(exactly).scope).toBe('document')
  expect(computeUrls(exactly).previousUrls).toHaveLength(1 + MAX_PAGES_BELOW)
})

test('many pages below a page whose URL did not change cost nothing and stay document scope', () => {
  const below = Array.from({ length: 1000 }, (_, i) => page(`p${i}`, 'about', { en: `p${i}` }))
  const p = page('about', 'home', { en: 'about' })
  expect(computeUrls(base({ before: p, after: p, others: tree(home, ...below) })).scope).toBe('document')
})

test(`pages below a page that is not live do not count toward the ${MAX_PAGES_BELOW}: they serve nothing before or after`, () => {
  const hidden = Array.from({ length: MAX_PAGES_BELOW + 1 }, (_, i) => page(`p${i}`, 'archived', { en: `p${i}` }))
  const others = tree(home, page('archived', 'about', { en: 'old' }, false), page('team', 'about', { en: 'team' }), ...hidden)
  const input = base({ before: page('about', 'home', { en: 'about' }), after: page('about', 'home', { en: 'about-us' }), others })
  expect(computeUrls(input)).toEqual({ url: '/about-us', urls: { en: '/about-us' }, previousUrls: ['/about', '/about/team'], scope: 'document' })
})
