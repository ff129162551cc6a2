/**
 * Restore I/O (spec.md "POST /content/apply-version" and contract.md apply-snapshot): one
 * implementation for both sources. It reads the document, its draft, its activity document
 * and the source in one read transaction; checks; computes the new draft with the pure
 * `mergeRestore`; then writes draft and activity together in one immediate transaction, each
 * conditional on the change vector read, and on the canonical being unchanged since (rule 5).
 * The canonical is never written and no revision is made (rule 6).
 */
import { holdConnection, type Conn, type Db, type Tx } from '../../db/client'
import type { DocumentRow } from '../../db/schema'
import { ConcurrencyError, revisionByChangeVector, saveDoc } from '../../db/store'
import { loadActivity, saveActivity, type ActivityEntry } from '../documents/activity'
import { asDocument, stripStamp } from '../documents/document'
import { draftId } from '../documents/ids'
import { ifMatchHolds } from '../documents/if-match'
import type { Document, DocumentView } from '../documents/model'
import { loadLive, present } from '../content/service'
import type { Caller } from '../auth'
import { batchFailure } from '../errors'
import { snapshotStatus, loadSnapshot } from '../snapshots/service'
import { getContentType, getTeam } from '../teams/service'
import type { RestoreCommand } from './request'
import { localeListProblem, mergeRestore, pruneAndAppend } from './rules'
import { localesPublishedSince, type Taken } from './published-since'

export const CONCURRENT_CHANGE = 'The draft changed while restoring. Save your pending edits and retry.'
/** An If-Match that does not hold: the caller's copy is stale, or there is no draft (`*`). */
export const IF_MATCH_FAILED = 'The draft is not at the version If-Match names: it changed since you read it, or there is no draft. Save your pending edits, re-read it and retry.'

export interface RestoreOptions {
  /** The caller's `If-Match` header, checked against the draft's change vector (core/documents/if-match.ts). */
  ifMatch?: string
  now?: Date
  /** Test seam: runs after everything is read and computed, just before the conditional write. */
  beforeWrite?: () => unknown
}

interface Source {
  body: Document
  entry: Pick<ActivityEntry, 'kind' | 'source'>
  /** When the source was taken: a version's place in the document's revisions, a snapshot's creation time. */
  taken: Taken
}

/** A restore's answer: every refusal is thrown (a batch failure), so it is always a success with the draft. */
export interface Restored {
  id: string
  status: 0
  document: DocumentView
}

/**
 * Restores a Published Version or a snapshot into the draft; answers the one success item. The
 * read and the conditional write hold the connection between them (db/transaction.ts
 * `holdConnection`): another request of this process does not land in between and turn this one
 * into a 409, as it did not when the store was synchronous; another process's write still can.
 */
export function restore(db: Db, caller: Caller, cmd: RestoreCommand, opts: RestoreOptions = {}): Promise<Restored> {
  return holdConnection(db, () => restoreHeld(db, caller, cmd, opts))
}

async function restoreHeld(db: Db, caller: Caller, cmd: RestoreCommand, opts: RestoreOptions): Promise<Restored> {
  const id = cmd.documentId
  const fail = (status: number, reason: string) => batchFailure(status, id, reason)
  const now = opts.now ?? new Date()
  const locales = cmd.locales && [...new Set(cmd.locales)]
  // One read transaction: WAL gives every read below the same consistent state.
  const state = await db.transaction(async (tx) => await readState(tx, caller, cmd, now, fail), { behavior: 'deferred' })
  const { canonical, draft, activity } = state
  if (!ifMatchHolds(opts.ifMatch, draft?.changeVector ?? null)) {
    throw fail(409, IF_MATCH_FAILED)
  }

  const body = mergeRestore({
    source: state.source.body,
    draft: draft && asDocument(draft.body),
    canonical: canonical && asDocument(stripStamp(canonical.body)),
    publishedSince: state.publishedSince,
    live: !!canonical?.published,
    locales,
    configured: state.configured,
    draftId: draftId(id),
  })
  const entry: ActivityEntry = { ...state.source.entry, locale: null, userId: caller.userId, at: now.toISOString(), locales }
  const entries = pruneAndAppend(activity.doc.entries, locales, entry)
  const collection = (await getContentType(db, caller.teamId, body.contentType))?.collection ?? (canonical ?? draft)!.collection

  await opts.beforeWrite?.()
  try {
    const row = await db.transaction(
      async (tx) => {
        // The merge read the canonical too (reverted locales); a publish since then refuses as well.
        // Read it as `readState` did (`loadLive`): a soft-deleted canonical is absent in both reads,
        // otherwise its row would never match the `null` read and every retry would be a 409.
        if (((await loadLive(tx, caller.teamId, id))?.changeVector ?? null) !== (canonical?.changeVector ?? null)) throw new ConcurrencyError(id)
        const saved = await saveDoc(tx, {
          teamId: caller.teamId, id: draftId(id), canonicalId: id, kind: 'draft', collection,
          body: body as Record<string, unknown>, expect: draft?.changeVector ?? null,
        })
        await saveActivity(tx, caller.teamId, id, { ...activity.doc, entries }, activity.row?.changeVector ?? null)
        return saved
      },
      { behavior: 'immediate' },
    )
    return { id, status: 0, document: present(row) }
  } catch (e) {
    // A change vector moved since the read: the transaction rolled back, nothing is written.
    if (e instanceof ConcurrencyError) throw fail(409, CONCURRENT_CHANGE)
    throw e
  }
}

type Fail = (status: number, reason: string) => Error

/** Everything the merge depends on, with the refusals of spec.md's table in their order. */
async function readState(tx: Tx, caller: Caller, cmd: RestoreCommand, now: Date, fail: Fail) {
  const { teamId } = caller
  const id = cmd.documentId
  const configured = (await getTeam(tx, teamId))!.locales
  if (cmd.locales) {
    const problem = localeListProblem(cmd.locales, configured)
    if (problem) throw fail(400, problem)
  }
  const canonical = await loadLive(tx, teamId, id)
  const draft = await loadLive(tx, teamId, draftId(id))
  if ((canonical && canonical.kind !== 'canonical') || (!canonical && !draft)) throw fail(404, 'Document not found.')
  // Authentication rule 2: touching the draft of a live document needs ChangeLiveContent.
  if (canonical?.published && !caller.capabilities.has('ChangeLiveContent')) {
    throw fail(403, 'Restoring into the draft of a published document requires the ChangeLiveContent capability.')
  }
  const source = await readSource(tx, teamId, cmd, now, fail, canonical !== null)
  // Only a whole restore (rule 1) asks what was published since; a locale list never does.
  const publishedSince = cmd.locales === null && canonical?.published ? await localesPublishedSince(tx, teamId, id, source.taken) : []
  return { configured, canonical, draft, source, publishedSince, activity: await loadActivity(tx, teamId, id) }
}

async function readSource(conn: Conn, teamId: string, cmd: RestoreCommand, now: Date, fail: Fail, live: boolean): Promise<Source> {
  if (cmd.kind === 'revision') {
    const rev = await revisionByChangeVector(conn, teamId, cmd.changeVector)
    // Same refusal for "no such revision" and "a revision of another document" (spec.md 404 row).
    // Without a live canonical there is no Published Version to restore: spec.md "Errors" refuses
    // a soft-deleted canonical's versions with 404 although its revisions are kept, so restore
    // answers like GET /content/version does (a draft written since makes no difference).
    if (!live || !rev || rev.documentId !== cmd.documentId || !rev.stamped) throw fail(404, 'No such published version of this document.')
    return { body: sourceBody(rev.body), entry: { kind: 'APPLY_REVISION', source: cmd.version }, taken: { ordinal: rev.ordinal } }
  }
  const snap = await loadSnapshot(conn, teamId, cmd.snapshotId)
  if (!snap || snap.row.documentId !== cmd.documentId) throw fail(404, 'Snapshot not found.')
  const status = snapshotStatus(snap.row, now)
  if (status !== 'active') throw fail(409, `The snapshot is ${status} and can no longer be restored.`)
  return { body: sourceBody(snap.body.body), entry: { kind: 'APPLY_SNAPSHOT', source: cmd.snapshotId }, taken: { at: snap.row.createdAt } }
}

/** A stored body as a restore source: stamp, dirty set and metadata removed, locales defaulted. */
function sourceBody(stored: DocumentRow['body']): Document {
  const doc = asDocument(stripStamp(stored))
  return { ...doc, fields: doc.fields ?? {}, locales: doc.locales ?? {} }
}
