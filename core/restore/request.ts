/**
 * Reading a restore request body by hand, so each refusal gets the shape spec.md's
 * "Restore: three 400 body shapes" fixes (a TypeBox body schema would turn them all into one
 * generic validation error). Pure: nothing here reaches the store.
 */
import { AppError, badRequest, batchFailure, ProblemError } from '../errors'
import { batchItemId, isValidCanonicalId, parseId } from '../documents/ids'
import { decodeVersionRef } from '../versions/service'
import { checkDepth } from '../body'

export type RestoreCommand =
  | { kind: 'revision'; documentId: string; version: string; changeVector: string; locales: string[] | null }
  | { kind: 'snapshot'; documentId: string; snapshotId: string; locales: string[] | null }

const present = (v: unknown): v is string => typeof v === 'string' && v.length > 0

/**
 * The text field `name` when given (a non-empty string); null when absent, `null` or `""` (the
 * spec's `missing_*`). Any other type is `invalid_body`, not "missing": it was sent, wrong.
 */
function textField(body: Record<string, unknown>, name: 'documentId' | 'snapshotId' | 'version'): string | null {
  const v = body[name]
  if (v !== undefined && v !== null && typeof v !== 'string') throw badRequest('invalid_body', `\`${name}\` must be a string.`)
  return present(v) ? v : null
}

/** The fields of spec.md "Restore request". */
export const RESTORE_FIELDS: ReadonlySet<string> = new Set(['kind', 'documentId', 'snapshotId', 'version', 'locales'])
/** contract.md's apply-snapshot body `{snapshotId, documentId?, locales?}`; `kind` may repeat `snapshot`. */
export const SNAPSHOT_FIELDS: ReadonlySet<string> = new Set(['kind', 'documentId', 'snapshotId', 'locales'])

/** Problem details only for a missing, empty or literal `null` body; malformed JSON stays an object error. */
export function parseBody(raw: string, fields: ReadonlySet<string> = RESTORE_FIELDS): unknown {
  if (raw.trim() === '') throw new ProblemError('A non-empty request body is required.', { '': ['A non-empty request body is required.'] })
  let body: unknown
  try {
    body = JSON.parse(raw)
  } catch {
    throw badRequest('malformed_json', 'The request body is not valid JSON.')
  }
  if (body === null) throw new ProblemError('A non-empty request body is required.', { '': ['The request body must not be null.'] })
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid_body', 'The request body must be a JSON object.')
  checkDepth(body)
  // A misspelt field (`locale` for `locales`) would otherwise turn into a whole-draft restore.
  const unknown = Object.keys(body).filter((k) => !fields.has(k))
  if (unknown.length > 0) throw badRequest('invalid_body', `Unknown field(s): ${unknown.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 100))).join(', ')}.`)
  return body
}

/**
 * Object-shape checks first (`bad_kind`, `missing_*`, `mismatch`), then the batch-list 400s
 * that need no store: a sibling id, a malformed reference. Locale checks need the team's
 * configuration and are done by the service.
 */
export function readRestoreRequest(body: Record<string, unknown>): RestoreCommand {
  const { kind } = body
  if (kind !== 'revision' && kind !== 'snapshot') throw badRequest('bad_kind', '`kind` must be `revision` or `snapshot`.')
  // The field this kind does not use is still a string or absent, as for the other kind.
  textField(body, kind === 'revision' ? 'snapshotId' : 'version')
  if (kind === 'revision') {
    const id = textField(body, 'documentId')
    if (id === null) throw badRequest('missing_id', '`documentId` is required for `kind: revision`.')
    const version = textField(body, 'version')
    if (version === null) throw badRequest('missing_version', '`version` is required for `kind: revision`.')
    const locales = readLocales(body.locales)
    if (parseId(id).kind !== 'canonical') throw batchFailure(400, batchItemId(id), 'Expected a canonical document id, not a sibling id.')
    const changeVector = decodeVersionRef(version)
    if (!changeVector) throw batchFailure(400, id, 'The version reference is not well formed; pass it back verbatim.')
    return { kind, documentId: id, version, changeVector, locales }
  }
  const snapshotId = textField(body, 'snapshotId')
  if (snapshotId === null) throw badRequest('missing_snapshot_id', '`snapshotId` is required for `kind: snapshot`.')
  const parsed = parseId(snapshotId)
  const documentId = textField(body, 'documentId')
  if (documentId !== null && parsed.kind === 'snapshot' && documentId !== parsed.canonicalId) {
    throw badRequest('mismatch', '`documentId` is not the document the snapshot belongs to.')
  }
  const locales = readLocales(body.locales)
  const shape = 'Expected a snapshot id of the shape `<document_id>/snapshot/<token>`.'
  if (parsed.kind !== 'snapshot') throw batchFailure(400, documentId !== null ? batchItemId(documentId) : malformedSnapshotOwner(snapshotId), shape)
  // A snapshot belongs to a canonical: `<id>/draft/snapshot/<token>` names none.
  if (parseId(parsed.canonicalId).kind !== 'canonical') throw batchFailure(400, batchItemId(parsed.canonicalId), shape)
  return { kind, documentId: parsed.canonicalId, snapshotId, locales }
}

/**
 * The batch item id for a snapshot id that is not one: the canonical it names when it is a
 * snapshot id without its token (`<id>/snapshot`, `<id>/snapshot/`), else as `batchItemId` says.
 */
function malformedSnapshotOwner(snapshotId: string): string {
  const owner = /^(.+)\/snapshot\/?$/.exec(snapshotId)?.[1]
  return owner !== undefined && isValidCanonicalId(owner) ? owner : batchItemId(snapshotId)
}

/** `null` or absent: every locale. Anything but a list of strings is a malformed body. */
function readLocales(value: unknown): string[] | null {
  if (value === undefined || value === null) return null
  if (!Array.isArray(value) || !value.every((l) => typeof l === 'string')) {
    throw new AppError(400, 'invalid_body', '`locales` must be null or a list of locale codes.')
  }
  return value
}
