/**
 * RFC 6902 JSON Patch as `PATCH /content` applies it (docs/json-patch.md): which patches are
 * refused before they run (malformed operations, protected fields, the document's id), and
 * applying the rest with fast-json-patch, bounded in size, with the library's refusals named
 * for the caller. Pure: a document in, a document or an `AppError` out.
 */
import jsonpatch, { type Operation } from 'fast-json-patch'
import { AppError, badRequest, echoList } from '../errors'
import { PROTECTED_FIELDS } from './document'

/**
 * The operations of a patch body, or the refusal: not an array (`invalid_body`), an operation
 * that is not RFC 6902 (`invalid_patch`), one that touches a protected field or the id
 * (`protected_field`). Nothing of the document is needed to say so.
 */
export function readPatch(patch: unknown): Operation[] {
  // The route's schema refuses a non-array first (`invalid_body`); this keeps other callers honest.
  if (!Array.isArray(patch)) throw badRequest('invalid_body', 'The body must be a JSON Patch array (RFC 6902).')
  const ops = patch as Operation[]
  const invalid = jsonpatch.validate(ops)
  if (invalid) throw badRequest('invalid_patch', `Invalid JSON Patch operation ${invalid.index}: ${invalid.name}.`)
  if (ops.some(touchesProtected)) {
    throw badRequest('protected_field', 'The fields __publishedBy, __publishedAt and __dirtyLocales cannot be patched.')
  }
  if (ops.some(changesId)) throw badRequest('protected_field', 'The field id names the document (the ?id= query) and cannot be patched; POST a copy under the new id instead.')
  return ops
}

/**
 * `ops` applied to `doc` (a copy it may change), in order, all or nothing: `400 invalid_patch`
 * naming the operation that does not apply, `413 payload_too_large` for a result larger than a
 * POST may write (`maxBytes`).
 */
export function applyPatch(doc: Record<string, unknown>, ops: Operation[], maxBytes: number): Record<string, unknown> {
  try {
    return applyBounded(doc, ops, maxBytes)
  } catch (e) {
    if (e instanceof AppError) throw e
    // fast-json-patch names its refusals (OPERATION_PATH_UNRESOLVABLE, TEST_OPERATION_FAILED...)
    // and the operation's index; its prototype guard throws a plain TypeError, whose name would
    // tell the caller nothing.
    const { name, index, operation } = e as Error & { index?: number; operation?: { op?: unknown; path?: unknown; from?: unknown } }
    if (!/^[A-Z_]+$/.test(name)) {
      // The library's prototype guard is a TypeError that names its flag; any other is no refusal of its own.
      if (/banPrototypeModifications/.test((e as Error).message)) throw badRequest('invalid_patch', 'The patch does not apply: `__proto__`, `constructor` and `prototype` cannot be patched.')
      throw badRequest('invalid_patch', 'The patch does not apply to this document.')
    }
    const what = operation && typeof operation.path === 'string'
      ? [String(operation.op), ...(typeof operation.from === 'string' ? [echoList([operation.from]), 'to'] : []), echoList([operation.path])].join(' ')
      : null
    const which = typeof index === 'number' && what ? ` at operation ${index} (${what})` : ''
    throw badRequest('invalid_patch', `The patch does not apply: ${name}${which}${PATCH_REFUSALS[name] ? `: ${PATCH_REFUSALS[name]}` : ''}.`)
  }
}

/**
 * Operations that touch a protected field, by their `path` or `from`. The root `""` holds every
 * field, so an operation that writes it (or moves or copies it) touches them too; a `test` of
 * the root only compares and stays allowed, as it always was.
 */
function touchesProtected(op: Operation): boolean {
  const from = 'from' in op ? op.from : undefined
  if ((op.op !== 'test' && op.path === '') || from === '') return true
  return [op.path, from].some((p) => typeof p === 'string' && PROTECTED_FIELDS.some((f) => p === `/${f}` || p.startsWith(`/${f}/`)))
}

/**
 * `/id` names the document, and that is the `?id=` query's: a patch may test or copy it, not
 * change, remove or move it.
 */
function changesId(op: Operation): boolean {
  const atId = (p: unknown) => p === '/id' || (typeof p === 'string' && p.startsWith('/id/'))
  return (op.op !== 'test' && atId(op.path)) || (op.op === 'move' && atId(op.from))
}

/** The value at `pointer`, or undefined where there is none (the operation itself then names its refusal). */
function valueAt(doc: unknown, pointer: string): unknown {
  try {
    return jsonpatch.getValueByPointer(doc, pointer)
  } catch {
    return undefined // a pointer through null or a missing parent throws a bare TypeError
  }
}

/** What fast-json-patch's refusals mean, for a caller who does not know its codes. */
const PATCH_REFUSALS: Record<string, string> = {
  OPERATION_PATH_UNRESOLVABLE: 'the path does not exist in the document',
  OPERATION_FROM_UNRESOLVABLE: 'the `from` path does not exist in the document',
  TEST_OPERATION_FAILED: 'the value at the path is not the one tested',
  OPERATION_PATH_ILLEGAL_ARRAY_INDEX: 'an array index must be a whole number',
  OPERATION_VALUE_OUT_OF_BOUNDS: 'the array index is past the end of the array',
  OPERATION_PATH_CANNOT_ADD: 'nothing can be added at that path',
  OPERATION_MOVE_INTO_ITSELF: 'a value cannot be moved into one of its own members',
}

/** RFC 6901: an array index is `0` or digits without a leading zero. */
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/

/**
 * What the library would get wrong in `op`, checked against `doc` before it runs: it reads an
 * array index as a 32-bit integer (`~~`), so one of 2^31 or more wraps round to another element,
 * and it takes `01` and the empty token for indexes (the empty one as 0). RFC 6901 allows
 * neither. A refusal is named the way the library names its own; `null`: go on.
 */
function arrayIndexRefusal(doc: unknown, op: Operation): string | null {
  if (op.op === 'move' && op.path.startsWith(op.from + '/')) return 'OPERATION_MOVE_INTO_ITSELF'
  const pointers: [string, boolean][] = [[op.path, op.op === 'add' || op.op === 'move' || op.op === 'copy']]
  if (op.op === 'move' || op.op === 'copy') pointers.push([op.from, false])
  for (const [pointer, adds] of pointers) {
    const tokens = pointer.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    let node: unknown = doc
    for (const [i, token] of tokens.entries()) {
      const last = i === tokens.length - 1
      if (Array.isArray(node)) {
        if (token === '-' && last && adds) break
        if (!ARRAY_INDEX.test(token)) return 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX'
        const at = Number(token)
        // An add may name the end (the length); anything else must name an element. The next
        // pointer (a copy's or move's `from`) is still checked.
        if (last && adds) {
          if (at > node.length) return 'OPERATION_VALUE_OUT_OF_BOUNDS'
          break
        }
        if (at >= node.length) return pointer === op.path ? 'OPERATION_PATH_UNRESOLVABLE' : 'OPERATION_FROM_UNRESOLVABLE'
        node = node[at]
      } else if (node !== null && typeof node === 'object' && Object.hasOwn(node, token)) {
        node = (node as Record<string, unknown>)[token]
      } else break // not there: the library's own refusal says so
    }
  }
  return null
}

/**
 * Applies `ops` to `doc` (a copy it may change) one at a time. A patch of a few KB could build a
 * document of any size (`copy` of a large field, again and again, or of a field holding earlier
 * copies: it doubles each time): a running upper bound of the result's JSON length (the document,
 * plus each value added and each `copy`'s source) stops it at twice `maxBytes` before it is built,
 * and the result may not be larger than a `POST` could write (`maxBytes`, MAX_BODY_BYTES): `413`.
 */
function applyBounded(doc: Record<string, unknown>, ops: Operation[], maxBytes: number): Record<string, unknown> {
  const length = (value: unknown) => JSON.stringify(value)?.length ?? 0
  const tooLarge = () => new AppError(413, 'payload_too_large', `The patched document would be larger than ${maxBytes} bytes (MAX_BODY_BYTES), more than a POST may write.`)
  let bound = length(doc)
  let result = doc
  for (const [index, op] of ops.entries()) {
    if (op.op === 'add' || op.op === 'replace') bound += length(op.value) + op.path.length
    else if (op.op === 'copy') bound += length(valueAt(result, op.from)) + op.path.length
    if (bound > 2 * maxBytes) throw tooLarge()
    const refused = arrayIndexRefusal(result, op)
    if (refused) throw Object.assign(new Error(refused), { name: refused, index, operation: op })
    try {
      result = jsonpatch.applyOperation(result, op, true, true, true, index).newDocument as Record<string, unknown>
    } catch (e) {
      // The library's refusal names operation 0 whichever failed: the index is ours to give.
      throw Object.assign(e as Error, { index })
    }
  }
  if (Buffer.byteLength(JSON.stringify(result) ?? '') > maxBytes) throw tooLarge()
  return result
}
