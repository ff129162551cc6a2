/**
 * The team's documents, one row per canonical id (docs/api/content.md#routes): what an editor's
 * list view or an assistant needs to find a document and see whether it has unpublished work.
 * Keyset paging on the canonical id through the `documents_canonical` index (the
 * `documents_collection` index for one collection), so a deep page costs what a first one does.
 */
import type { Db } from '../../db/client'
import { listCanonicalIds, listRowsOf, schedulesOfIds, type ListRow } from '../../db/queries/documents'
import { teamDefaultLocale } from '../../db/queries/teams'
import { pageSizeParam } from '../query'
import type { DocumentList, DocumentSummary } from '../documents/model'

/** Rows of a list page: by default, and at most. */
export const LIST_PAGE = { fallback: 25, max: 100 } as const

/** `pageSize` as text: at least 1, capped at `LIST_PAGE.max`; unset or empty is `LIST_PAGE.fallback`; else `400 bad_paging`, as on the version list. */
export const parseListPageSize = (text: string | undefined) => pageSizeParam(text, { name: 'pageSize', ...LIST_PAGE, code: 'bad_paging' })

/**
 * One page of the team's documents in canonical id order, after `after` (exclusive), optionally
 * of one collection. Soft-deleted documents are left out, as reads leave them out.
 */
export async function listDocuments(db: Db, teamId: string, opts: { collection?: string; after?: string; pageSize: number }): Promise<DocumentList> {
  const found = await listCanonicalIds(db, teamId, { collection: opts.collection, after: opts.after ?? '', limit: opts.pageSize + 1 })
  const hasMore = found.length > opts.pageSize
  const page = found.slice(0, opts.pageSize)
  const ids = JSON.stringify(page)
  // The title is read in the team's default language: the language every document must have.
  const locale = `$.locales."${((await teamDefaultLocale(db, teamId)) ?? '').replace(/"/g, '')}"`
  const rows = await listRowsOf(db, teamId, ids, locale)
  const scheduled = new Map((await schedulesOfIds(db, teamId, ids)).map(([id, at]) => [id, new Date(at).toISOString()]))
  const byId = new Map<string, { canonical?: ListRow; draft?: ListRow }>()
  for (const row of rows) {
    const entry = byId.get(row.canonical_id) ?? {}
    entry[row.kind] = row
    byId.set(row.canonical_id, entry)
  }
  const summaries = page.flatMap((id): DocumentSummary[] => {
    const { canonical, draft } = byId.get(id) ?? {}
    const shown = draft ?? canonical
    if (!shown) return []
    return [{
      id,
      contentType: shown.content_type,
      collection: shown.collection,
      published: Boolean(canonical?.published),
      archived: Boolean(canonical?.archived),
      draft: draft !== undefined,
      dirtyLocales: draft?.dirty ? (JSON.parse(draft.dirty) as string[]) : [],
      updatedAt: [canonical?.updated_at, draft?.updated_at].filter((x): x is string => x !== undefined).sort().at(-1)!,
      title: typeof shown.title === 'string' ? shown.title : null,
      scheduledAt: scheduled.get(id) ?? null,
    }]
  })
  return { rows: summaries, hasMore, nextAfter: hasMore ? page.at(-1)! : null }
}
