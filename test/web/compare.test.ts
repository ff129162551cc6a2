import { expect, test } from 'bun:test'
import { compareDocs } from '../../web/compare-lines'

const doc = (fields: Record<string, unknown>, locales: Record<string, Record<string, unknown>>) => ({ id: 'p', contentType: 'page', fields, locales })

test('compare marks each field of each locale added, removed, changed or the same', () => {
  const left = doc({ parent: null, sku: 'A' }, { en: { title: 'One', slug: 'x' }, de: { title: 'Eins' } })
  const right = doc({ parent: null, sku: 'B' }, { en: { title: 'One', body: 'new' }, fr: { title: 'Un' } })
  const lines = compareDocs(left, right).map((l) => `${l.section}/${l.field}:${l.change}`)
  expect(lines).toEqual([
    'Fields for every language/parent:same', 'Fields for every language/sku:changed',
    'Language de/title:removed',
    'Language en/body:added', 'Language en/slug:removed', 'Language en/title:same',
    'Language fr/title:added',
  ])
})

test('compare limited to the locales a restore takes, and without the shared fields', () => {
  const left = doc({ sku: 'A' }, { en: { title: 'One' }, de: { title: 'Eins' } })
  const right = doc({ sku: 'B' }, { en: { title: 'Two' }, de: { title: 'Zwei' } })
  expect(compareDocs(left, right, { locales: ['de'], fields: false }).map((l) => `${l.section}/${l.field}:${l.change}`)).toEqual(['Language de/title:changed'])
  // Values compare as JSON: an equal object is the same, a number is not its string.
  expect(compareDocs(doc({ a: { x: [1] }, n: 1 }, {}), doc({ a: { x: [1] }, n: '1' }, {})).map((l) => l.change)).toEqual(['same', 'changed'])
})
