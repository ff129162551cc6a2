import { expect, test } from 'bun:test'
import { applyPatch, readPatch } from '../../../core/documents/json-patch'
import { AppError } from '../../../core/errors'

const DOC = () => ({
  id: 'pages/a', contentType: 'page',
  fields: { parent: null, arr: ['a', 'b', 'c'], objs: [{ x: 1 }], big: 'x'.repeat(1000) },
  locales: { en: { title: 'T', slug: 's' } },
})
const MAX = 4096

/** What `readPatch` then `applyPatch` make of `patch`: the document, or the refusal as the api answers it. */
function outcome(patch: unknown): { doc: unknown } | { status: number; error: string; message: string } {
  try {
    return { doc: applyPatch(DOC(), readPatch(patch), MAX) }
  } catch (e) {
    if (!(e instanceof AppError)) throw e
    return { status: e.status, error: e.code, message: e.message }
  }
}
const refused = (error: string, message: string, status = 400) => ({ status, error, message })
const notApplied = (what: string) => refused('invalid_patch', `The patch does not apply: ${what}.`)
const PROTO = notApplied('`__proto__`, `constructor` and `prototype` cannot be patched')
const PROTECTED = refused('protected_field', 'The fields __publishedBy, __publishedAt and __dirtyLocales cannot be patched.')
const ID = refused('protected_field', 'The field id names the document (the ?id= query) and cannot be patched; POST a copy under the new id instead.')

/** Hostile or malformed patches: each is refused, with the code and words the api answers. */
const REFUSED: [string, unknown, ReturnType<typeof refused>][] = [
  ['not an array', { op: 'add', path: '/x', value: 1 }, refused('invalid_body', 'The body must be a JSON Patch array (RFC 6902).')],
  ['an unknown op', [{ op: 'jump', path: '/fields' }], refused('invalid_patch', 'Invalid JSON Patch operation 0: OPERATION_OP_INVALID.')],
  ['an operation that is no object', [null], refused('invalid_patch', 'Invalid JSON Patch operation 0: OPERATION_NOT_AN_OBJECT.')],
  ['no path', [{ op: 'remove' }], refused('invalid_patch', 'Invalid JSON Patch operation 0: OPERATION_PATH_INVALID.')],
  ['a path that is no pointer', [{ op: 'add', path: 'fields/x', value: 1 }], refused('invalid_patch', 'Invalid JSON Patch operation 0: OPERATION_PATH_INVALID.')],
  ['a path that is no string', [{ op: 'add', path: 5, value: 1 }], refused('invalid_patch', 'Invalid JSON Patch operation 0: OPERATION_PATH_INVALID.')],
  ['an add without a value', [{ op: 'add', path: '/fields/x' }], refused('invalid_patch', 'Invalid JSON Patch operation 0: OPERATION_VALUE_REQUIRED.')],
  ['a move without from', [{ op: 'move', path: '/fields/x' }], refused('invalid_patch', 'Invalid JSON Patch operation 0: OPERATION_FROM_REQUIRED.')],
  ['the second operation malformed', [{ op: 'test', path: '/id', value: 'pages/a' }, { op: 'copy', path: '/fields/x' }], refused('invalid_patch', 'Invalid JSON Patch operation 1: OPERATION_FROM_REQUIRED.')],
  ['the publish stamp', [{ op: 'replace', path: '/__publishedBy', value: 'me' }], PROTECTED],
  ['inside the dirty locales', [{ op: 'add', path: '/__dirtyLocales/0', value: 'en' }], PROTECTED],
  ['copying the stamp out', [{ op: 'copy', from: '/__publishedAt', path: '/fields/at' }], PROTECTED],
  ['the root replaced', [{ op: 'replace', path: '', value: {} }], PROTECTED],
  ['the root moved away', [{ op: 'move', from: '', path: '/fields/all' }], PROTECTED],
  ['the root copied', [{ op: 'copy', from: '', path: '/fields/all' }], PROTECTED],
  ['the id replaced', [{ op: 'replace', path: '/id', value: 'pages/b' }], ID],
  ['the id removed', [{ op: 'remove', path: '/id' }], ID],
  ['the id moved away', [{ op: 'move', from: '/id', path: '/fields/id' }], ID],
  ['__proto__ at the top', [{ op: 'add', path: '/__proto__/polluted', value: 1 }], PROTO],
  ['__proto__ in fields', [{ op: 'add', path: '/fields/__proto__', value: { polluted: 1 } }], PROTO],
  // `constructor` is no own member of a parsed object: the path does not resolve.
  ['constructor.prototype', [{ op: 'add', path: '/fields/constructor/prototype/polluted', value: 1 }], notApplied('OPERATION_PATH_UNRESOLVABLE at operation 0 (add /fields/constructor/prototype/po...): the path does not exist in the document')],
  ['an index past 2^31 (wraps to the front when read as int32)', [{ op: 'add', path: '/fields/arr/2147483648', value: 'Y' }], notApplied('OPERATION_VALUE_OUT_OF_BOUNDS at operation 0 (add /fields/arr/2147483648): the array index is past the end of the array')],
  ['an index near 2^32', [{ op: 'add', path: '/fields/arr/4294967294', value: 'Y' }], notApplied('OPERATION_VALUE_OUT_OF_BOUNDS at operation 0 (add /fields/arr/4294967294): the array index is past the end of the array')],
  ['an index with a leading zero', [{ op: 'add', path: '/fields/arr/01', value: 'Y' }], notApplied('OPERATION_PATH_ILLEGAL_ARRAY_INDEX at operation 0 (add /fields/arr/01): an array index must be a whole number')],
  ['an empty index', [{ op: 'add', path: '/fields/arr/', value: 'Y' }], notApplied('OPERATION_PATH_ILLEGAL_ARRAY_INDEX at operation 0 (add /fields/arr/): an array index must be a whole number')],
  ['`-` where an element must exist', [{ op: 'replace', path: '/fields/arr/-', value: 'Y' }], notApplied('OPERATION_PATH_ILLEGAL_ARRAY_INDEX at operation 0 (replace /fields/arr/-): an array index must be a whole number')],
  ['a path through element 2^32', [{ op: 'replace', path: '/fields/objs/4294967296/x', value: 2 }], notApplied('OPERATION_PATH_UNRESOLVABLE at operation 0 (replace /fields/objs/4294967296/x): the path does not exist in the document')],
  ['a copy from element 2^32', [{ op: 'copy', from: '/fields/arr/4294967296', path: '/fields/arr/0' }], notApplied('OPERATION_FROM_UNRESOLVABLE at operation 0 (copy /fields/arr/4294967296 to /fields/arr/0): the `from` path does not exist in the document')],
  ['a move into itself', [{ op: 'move', from: '/fields/arr', path: '/fields/arr/0' }], notApplied('OPERATION_MOVE_INTO_ITSELF at operation 0 (move /fields/arr to /fields/arr/0): a value cannot be moved into one of its own members')],
  ['a copy from through null', [{ op: 'copy', from: '/fields/parent/x', path: '/fields/z' }], notApplied('OPERATION_FROM_UNRESOLVABLE at operation 0 (copy /fields/parent/x to /fields/z): the `from` path does not exist in the document')],
  ['a replace of nothing', [{ op: 'test', path: '/id', value: 'pages/a' }, { op: 'replace', path: '/locales/fr/title', value: 'x' }], notApplied('OPERATION_PATH_UNRESOLVABLE at operation 1 (replace /locales/fr/title): the path does not exist in the document')],
  ['a failed test', [{ op: 'test', path: '/locales/en/title', value: 'other' }], notApplied('TEST_OPERATION_FAILED at operation 0 (test /locales/en/title): the value at the path is not the one tested')],
  ['copies that grow past the limit', [{ op: 'copy', from: '/fields/big', path: '/fields/b1' }, { op: 'copy', from: '/fields/big', path: '/fields/b2' }, { op: 'copy', from: '/fields/big', path: '/fields/b3' }, { op: 'copy', from: '/fields/big', path: '/fields/b4' }], refused('payload_too_large', `The patched document would be larger than ${MAX} bytes (MAX_BODY_BYTES), more than a POST may write.`, 413)],
]

test.each(REFUSED)('refused: %s', (_, patch, expected) => {
  expect(outcome(patch)).toEqual(expected)
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
})

/** What RFC 6902 allows stays allowed, the protected fields and the id too where only read. */
const APPLIED: [string, unknown, (doc: ReturnType<typeof DOC>) => void][] = [
  ['add at the end by `-` and by the length, replace through an element', [{ op: 'add', path: '/fields/arr/-', value: 'd' }, { op: 'add', path: '/fields/arr/4', value: 'e' }, { op: 'replace', path: '/fields/objs/0/x', value: 2 }], (d) => { d.fields.arr.push('d', 'e'); d.fields.objs[0]!.x = 2 }],
  ['a test of the root, then a change', [{ op: 'test', path: '', value: DOC() }, { op: 'replace', path: '/locales/en/title', value: 'New' }], (d) => { d.locales.en.title = 'New' }],
  ['a test and a copy of the id', [{ op: 'test', path: '/id', value: 'pages/a' }, { op: 'copy', from: '/id', path: '/fields/was' }], (d) => { (d.fields as Record<string, unknown>).was = 'pages/a' }],
  ['a field of its own named like the stamp, below the top', [{ op: 'add', path: '/fields/__publishedBy', value: 'mine' }], (d) => { (d.fields as Record<string, unknown>).__publishedBy = 'mine' }],
  ['escaped tokens', [{ op: 'add', path: '/fields/a~1b~0c', value: 1 }], (d) => { (d.fields as Record<string, unknown>)['a/b~c'] = 1 }],
  ['a move and a remove', [{ op: 'move', from: '/fields/arr/0', path: '/fields/first' }, { op: 'remove', path: '/fields/big' }], (d) => { (d.fields as Record<string, unknown>).first = d.fields.arr.shift(); delete (d.fields as Record<string, unknown>).big }],
  ['an empty patch', [], () => {}],
]

test.each(APPLIED)('applied: %s', (_, patch, change) => {
  const expected = DOC()
  change(expected)
  expect(outcome(patch)).toEqual({ doc: expected })
})
