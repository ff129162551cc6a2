/**
 * The activity document of a canonical (`<id>/activity`): an append-only list of entries
 * (`EDIT` per locale, `APPLY_REVISION`, `APPLY_SNAPSHOT`, ...). It lives in the document
 * keyspace under the `@activity` collection so restore can write it under the same
 * optimistic concurrency as the draft.
 */
import type { Conn } from '../../db/client'
import { ACTIVITY_COLLECTION, loadDoc, saveDoc } from '../../db/store'
import type { DocumentRow } from '../../db/schema'
import { activityId } from './ids'
import type { ActivityEntry } from './model'

export type { ActivityEntry }

export interface ActivityDoc {
  id: string
  entries: ActivityEntry[]
}

export async function loadActivity(conn: Conn, teamId: string, canonicalId: string): Promise<{ row: DocumentRow | null; doc: ActivityDoc }> {
  const row = await loadDoc(conn, teamId, activityId(canonicalId))
  const doc = row ? (row.body as unknown as ActivityDoc) : { id: activityId(canonicalId), entries: [] }
  return { row, doc }
}

/** Writes the whole activity document; `expect` is the change vector read (null: must not exist). */
export async function saveActivity(conn: Conn, teamId: string, canonicalId: string, doc: ActivityDoc, expect?: string | null) {
  return await saveDoc(conn, {
    teamId,
    id: activityId(canonicalId),
    canonicalId,
    kind: 'activity',
    collection: ACTIVITY_COLLECTION,
    body: doc as unknown as Record<string, unknown>,
    expect,
  })
}

/**
 * The activity document keeps the newest entries only: it is rewritten on every edit and every
 * restore, so an unbounded log would make every save slower than the last.
 */
export const MAX_ACTIVITY_ENTRIES = 500

/** The newest `MAX_ACTIVITY_ENTRIES` of `entries`: what every writer of the activity document keeps. */
export const capActivity = (entries: readonly ActivityEntry[]): ActivityEntry[] => entries.slice(-MAX_ACTIVITY_ENTRIES)

/** Appends entries to the activity document of `canonicalId`, keeping the newest `MAX_ACTIVITY_ENTRIES`. */
export async function appendActivity(conn: Conn, teamId: string, canonicalId: string, entries: ActivityEntry[]) {
  if (entries.length === 0) return
  const { row, doc } = await loadActivity(conn, teamId, canonicalId)
  await saveActivity(conn, teamId, canonicalId, { ...doc, entries: capActivity([...doc.entries, ...entries]) }, row?.changeVector ?? null)
}
