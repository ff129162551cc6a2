/**
 * The byte delta of db/byte-delta.ts gives back its target exactly, whatever the two texts: the
 * version bodies it rebuilds must be byte-identical to what publish wrote.
 */
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { diffBytes, patchBytes } from '../../db/byte-delta'

const bytes = fc.uint8Array({ maxLength: 600 })
/** A target made from the base by edits, as consecutive versions of a document are. */
const edited = bytes.chain((base) =>
  fc.array(fc.record({ at: fc.nat(), cut: fc.nat({ max: 40 }), insert: fc.uint8Array({ maxLength: 40 }) }), { maxLength: 6 })
    .map((edits) => {
      let t = Array.from(base)
      for (const e of edits) {
        const at = t.length === 0 ? 0 : e.at % (t.length + 1)
        t.splice(at, e.cut, ...e.insert)
      }
      return { base, target: Uint8Array.from(t) }
    }))

test('patchBytes(base, diffBytes(base, target)) is target, for unrelated texts and for edits of the base', () => {
  fc.assert(fc.property(bytes, bytes, (base, target) => {
    expect(patchBytes(base, diffBytes(base, target))).toEqual(target)
  }), { numRuns: 300 })
  fc.assert(fc.property(edited, ({ base, target }) => {
    expect(patchBytes(base, diffBytes(base, target))).toEqual(target)
  }), { numRuns: 500 })
})

test('a few edits of a long text give a delta much shorter than the text', () => {
  const base = new TextEncoder().encode(JSON.stringify({ locales: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`l${i}`, { title: `Title ${i}`, body: 'x'.repeat(40) + i }])) }))
  const target = new TextEncoder().encode(new TextDecoder().decode(base).replace('Title 7', 'Title seven'))
  const delta = diffBytes(base, target)
  expect(patchBytes(base, delta)).toEqual(target)
  expect(delta.length).toBeLessThan(target.length / 10)
})
