/**
 * The restore invariants again, end to end: random documents published twice, a random draft
 * and a random locale list, restored through HTTP. The stored draft must obey the rules and
 * the canonical (change vector, body, versions) must be untouched (rule 6).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import { createTestContext, TEAM, type TestContext } from '../../helpers'
import { activity, applyVersion, bare, cv, ok, publish, put, read, versionRefs, type Doc } from './fixtures'

const LOCALES = ['en', 'de', 'fr']
let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

const has = (o: object | undefined | null, k: string) => !!o && Object.prototype.hasOwnProperty.call(o, k)
const json = (v: unknown) => JSON.stringify(v)
const locales = fc.dictionary(fc.constantFrom(...LOCALES), fc.record({ title: fc.string({ maxLength: 8 }), slug: fc.stringMatching(/^[a-z0-9-]{0,8}$/) }), { minKeys: 1 })
const fields = fc.record({ parent: fc.constant(null), sku: fc.string({ maxLength: 6 }) })

let n = 0
test('HTTP restore keeps the rules and never touches the canonical', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        v1: fc.record({ fields, locales }), v2: fc.record({ fields, locales }),
        draft: fc.option(fc.record({ fields, locales }), { nil: null }),
        list: fc.option(fc.uniqueArray(fc.constantFrom(...LOCALES), { minLength: 1 }), { nil: null }),
        older: fc.boolean(),
      }),
      async ({ v1, v2, draft, list, older }) => {
        const id = `pages/prop-${++n}`
        await put(ctx, { id, contentType: 'page', ...v1 } as Doc)
        await publish(ctx, id)
        await put(ctx, { id, contentType: 'page', ...v2 } as Doc)
        await publish(ctx, id)
        if (draft) await put(ctx, { id: `${id}/draft`, contentType: 'page', ...draft } as Doc)
        const [ref2, ref1] = await versionRefs(ctx, id)
        const source = older ? v1 : v2
        const canonicalBefore = (await read(ctx, id)).body
        const pre = await read(ctx, `${id}/draft`)
        const preDraft = pre.status === 200 ? pre.body : null

        const [item] = await ok(applyVersion(ctx, { kind: 'revision', documentId: id, version: older ? ref1 : ref2, locales: list }))
        const stored = (await read(ctx, `${id}/draft`)).body
        expect(stored).toEqual(item.document)
        const canonicalAfter = (await read(ctx, id)).body
        expect(cv(canonicalAfter)).toBe(cv(canonicalBefore))
        expect(canonicalAfter).toEqual(canonicalBefore)
        expect(await versionRefs(ctx, id)).toEqual([ref2!, ref1!])

        const out = bare(stored) as any
        const live = canonicalBefore.locales
        expect(out.fields).toEqual(source.fields)
        for (const l of LOCALES) {
          // A listed locale neither the source nor the draft carried comes from the canonical.
          const neither = !!list && list.includes(l) && !has(source.locales, l) && !has(preDraft?.locales, l)
          const fromSource = !neither && (list ? list.includes(l) : has(source.locales, l))
          const expected = fromSource ? (source.locales as any)[l]
            : list && has(preDraft?.locales, l) ? preDraft.locales[l]
            : live[l]
          expect(json(out.locales[l])).toBe(json(expected))
        }
        const dirty = list ? [...new Set([...(preDraft?.__dirtyLocales ?? []), ...list])].sort() : Object.keys(source.locales).sort()
        expect(out.__dirtyLocales).toEqual(dirty)
        const entries = await activity(ctx, id)
        expect(entries.at(-1)).toEqual({ kind: 'APPLY_REVISION', locale: null, userId: 'u-editor', source: older ? ref1 : ref2, locales: list })
      },
    ),
    { numRuns: 40 },
  )
})
