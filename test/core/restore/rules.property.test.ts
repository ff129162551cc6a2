/**
 * Property tests of the pure restore rules (spec.md "Restore semantics", rules 1-3) over
 * random documents, configured locale sets, dirty sets and locale lists.
 */
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import type { ActivityEntry } from '../../../core/documents/activity'
import type { Document } from '../../../core/documents/model'
import { mergeRestore, pruneAndAppend } from '../../../core/restore/rules'

const POOL = ['en', 'de', 'fr', 'it', 'es', 'nl', 'pt-BR']
const json = (v: unknown) => JSON.stringify(v)
const has = (o: object | undefined, k: string) => !!o && Object.prototype.hasOwnProperty.call(o, k)

const localeBody = fc.dictionary(fc.constantFrom('title', 'slug', 'body', 'meta'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
const doc = (id: string) =>
  fc.record({
    id: fc.constant(id),
    contentType: fc.constantFrom('page', 'product'),
    fields: fc.dictionary(fc.constantFrom('parent', 'sku', 'order'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    locales: fc.dictionary(fc.constantFrom(...POOL), localeBody, { maxKeys: POOL.length }),
  }) as fc.Arbitrary<Document>

const scenario = fc
  .record({
    configured: fc.uniqueArray(fc.constantFrom(...POOL), { minLength: 1 }),
    source: doc('pages/x'),
    draft: fc.option(doc('pages/x/draft'), { nil: null }),
    canonical: fc.option(doc('pages/x'), { nil: null }),
    dirty: fc.uniqueArray(fc.constantFrom(...POOL)),
    publishedSince: fc.uniqueArray(fc.constantFrom(...POOL)),
    live: fc.boolean(),
    pick: fc.option(fc.uniqueArray(fc.nat(), { minLength: 1, maxLength: 6 }), { nil: null }),
  })
  .map(({ configured, draft, dirty, pick, ...rest }) => ({
    ...rest,
    configured,
    draft: draft && { ...draft, __dirtyLocales: dirty.filter((l) => has(draft.locales, l)) },
    // A list is validated by the service: a non-empty subset of the configured locales.
    locales: pick && [...new Set(pick.map((i) => configured[i % configured.length]!))],
  }))

test('locale list: listed from the source (a listed locale neither carried from the canonical), unlisted draft locales byte-identical, the rest from the canonical', () => {
  fc.assert(
    fc.property(scenario.filter((s) => s.locales !== null), (s) => {
      const frozen = json([s.source, s.draft, s.canonical])
      const out = mergeRestore({ ...s, draftId: 'pages/x/draft' })
      expect(json([s.source, s.draft, s.canonical])).toBe(frozen) // inputs, the canonical included, untouched
      const listed = new Set(s.locales)
      for (const l of POOL) {
        if (listed.has(l) && (has(s.source.locales, l) || has(s.draft?.locales, l))) {
          // From the source; absent there (and carried by the draft) means removed.
          expect(has(out.locales, l)).toBe(has(s.source.locales, l))
          if (has(s.source.locales, l)) expect(json(out.locales[l])).toBe(json(s.source.locales[l]))
        } else if (listed.has(l)) {
          // Neither the source nor the draft carried it: reverted from the canonical.
          expect(has(out.locales, l)).toBe(has(s.canonical?.locales, l))
          if (has(out.locales, l)) expect(json(out.locales[l])).toBe(json(s.canonical!.locales[l]))
        } else if (has(s.draft?.locales, l)) {
          expect(json(out.locales[l])).toBe(json(s.draft!.locales[l]))
        } else {
          expect(has(out.locales, l)).toBe(has(s.canonical?.locales, l))
          if (has(out.locales, l)) expect(json(out.locales[l])).toBe(json(s.canonical!.locales[l]))
        }
      }
      // A locale taken from a canonical that is not live is dirty too (docs/api/restore.md#rules, rule 2).
      const fromCanonical = POOL.filter((l) => has(out.locales, l) && !has(s.draft?.locales, l) && !(listed.has(l) && has(s.source.locales, l)))
      expect(out.__dirtyLocales).toEqual([...new Set([...(s.draft?.__dirtyLocales ?? []), ...s.locales!, ...(s.live ? [] : fromCanonical)])].sort())
      expect(json(out.fields)).toBe(json(s.source.fields))
      expect(out.contentType).toBe(s.source.contentType)
      expect(out.id).toBe('pages/x/draft')
    }),
    { numRuns: 500 },
  )
})

test('whole restore: every source locale, locales published since the source from the canonical (no other), dirty = source locales', () => {
  fc.assert(
    fc.property(scenario, (s) => {
      const frozen = json([s.source, s.draft, s.canonical])
      const out = mergeRestore({ ...s, locales: null, draftId: 'pages/x/draft' })
      expect(json([s.source, s.draft, s.canonical])).toBe(frozen)
      for (const l of POOL) {
        if (has(s.source.locales, l)) expect(json(out.locales[l])).toBe(json(s.source.locales[l]))
        else {
          // Live when the source was taken and absent from it: the source dropped it, so it stays out.
          expect(has(out.locales, l)).toBe(has(s.canonical?.locales, l) && s.publishedSince.includes(l))
          if (has(out.locales, l)) expect(json(out.locales[l])).toBe(json(s.canonical!.locales[l]))
        }
      }
      expect(out.__dirtyLocales).toEqual(Object.keys(s.source.locales).sort())
      expect(json(out.fields)).toBe(json(s.source.fields))
    }),
    { numRuns: 500 },
  )
})

const entry = fc.record({
  kind: fc.constantFrom('EDIT', 'EDIT', 'APPLY_REVISION', 'APPLY_SNAPSHOT', 'PUBLISH') as fc.Arbitrary<ActivityEntry['kind']>,
  locale: fc.option(fc.constantFrom(...POOL), { nil: null }),
  userId: fc.constant('u'),
  at: fc.constant('t'),
})

test('activity: one restore entry appended last; EDITs of restored locales pruned; everything else kept in order', () => {
  const applied: ActivityEntry = { kind: 'APPLY_REVISION', locale: null, userId: 'u', at: 'now', source: 'ref' }
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 30 }), fc.option(fc.uniqueArray(fc.constantFrom(...POOL), { minLength: 1 }), { nil: null }), (entries, locales) => {
      const out = pruneAndAppend(entries, locales, applied)
      expect(out.at(-1)).toBe(applied)
      const pruned = (e: ActivityEntry) => e.kind === 'EDIT' && (locales === null || (e.locale !== null && locales.includes(e.locale)))
      expect(out.slice(0, -1)).toEqual(entries.filter((e) => !pruned(e)))
      if (locales === null) expect(out.filter((e) => e.kind === 'EDIT')).toEqual([])
    }),
    { numRuns: 500 },
  )
})
