/**
 * History (spec.md "What the service does": the per-document timeline of the current draft,
 * any scheduled publish, any active snapshot and the Published Versions). Each part is
 * newest first; `versions` is the first page of `listVersions`, so a client pages on with
 * `GET /content/versions?start=<nextStart>`.
 */
import type { Db } from '../../db/client'
import { getSchedule } from '../../db/queries/schedules'
import { loadDoc } from '../../db/store'
import { asDocument } from '../documents/document'
import { draftId, parseId, scheduledId } from '../documents/ids'
import { loadLive } from '../content/service'
import { badRequest, notFound } from '../errors'
import { activeSnapshots, toRecord } from '../snapshots/service'
import { DEFAULT_PAGE_SIZE, listVersions } from '../versions/service'

const localesOf = (body: Record<string, unknown>) => Object.keys(asDocument(body).locales ?? {})

/** The History of a canonical (or of a document that so far only has a draft). */
export async function getHistory(db: Db, teamId: string, id: string | undefined, now = new Date()) {
  if (!id) throw badRequest('missing_id', 'Query parameter `id` is required.')
  // The codes of the version list, in its order: a sibling id, then an activity document
  // (`not_content` when it exists, like any id outside a content collection).
  const kind = parseId(id).kind
  if (kind === 'draft' || kind === 'scheduled' || kind === 'snapshot') {
    throw badRequest('sibling_id', 'The id names a draft, scheduled or snapshot sibling; pass the canonical id.')
  }
  if (kind === 'activity') {
    if (!await loadLive(db, teamId, id)) throw notFound('Document not found.')
    throw badRequest('not_content', 'The id is not a document of a content collection.')
  }
  const canonical = await loadLive(db, teamId, id)
  const draft = await loadLive(db, teamId, draftId(id))
  if (!canonical && !draft) throw notFound('Document not found.')

  const scheduledRow = await loadDoc(db, teamId, scheduledId(id))
  const schedule = await getSchedule(db, teamId, id)
  return {
    id,
    draft: draft && {
      id: draft.id,
      updatedAt: draft.updatedAt,
      locales: localesOf(draft.body),
      dirtyLocales: (asDocument(draft.body).__dirtyLocales ?? []) as string[],
    },
    scheduled:
      scheduledRow && schedule
        ? { id: scheduledRow.id, publishAt: new Date(schedule.publishAt).toISOString(), scheduledBy: schedule.scheduledBy, locales: localesOf(scheduledRow.body) }
        : null,
    snapshots: await Promise.all((await activeSnapshots(db, teamId, id, now)).map(async (row) => {
      const body = await loadDoc(db, teamId, row.id)
      return { ...toRecord(row, now), locales: body ? localesOf(body.body) : [] }
    })),
    // docs/api/snapshots-and-history.md#history: `versions` is the first page of GET /content/versions, which refuses a
    // canonical that is not live (spec.md "Errors": soft-deleted canonicals are refused with 404
    // although their revisions are kept). The draft keeps the timeline alive, so the section is
    // the empty page a document that so far only has a draft shows, never the deleted versions.
    versions: canonical ? await listVersions(db, teamId, id, 0, DEFAULT_PAGE_SIZE) : { rows: [], hasMore: false, nextStart: 0 },
  }
}
