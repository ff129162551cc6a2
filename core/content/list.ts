/**
 * The team's documents, one row per canonical id (docs/api/content.md#routes): what an editor's
 * list view or an assistant needs to find a document and see whether it has unpublished work.
 * Keyset paging on the canonical id through the `documents_canonical` index, so a deep page
 * costs what a first one does.
 */
import type { Db } from '../../db/client'
import { pageSizeParam } from '../query'
import type { DocumentList, DocumentSummary } from '../documents/model'

/** Rows of a list page: by default, and at most. */
export const LIST_PAGE = { fallback: 25, max: 100 } as const

/** `pageSize` as text: at least 1, capped at `LIST_PAGE.max`; unset or empty is `LIST_PAGE.fallback`; else `400 bad_paging`, as on the version list. */
export const parseListPageSize = (text: string | undefined) => pageSizeParam(text, { name: 'pageSize', ...LIST_PAGE, code: 'bad_paging' })

interface Row {
  canonical_id: string
  kind: 'canonical' | 'draft'
  collection: string
  content_type: string
  published: number
  archived: number
  dirty: string | null
  updated_at: string
}

/**
 * One page of the team's documents in canonical id order, after `after` (exclusive), optionally
 * of one collection. Soft-deleted documents are left out, as reads leave them out.
 */
export function listDocuments(db: Db, teamId: string, opts: { collection?: string; after?: string; pageSize: number }): DocumentList {
  const c = db.$client
  const byCollection = opts.collection === undefined ? '' : 'AND collection = $collection'
  const ids = (c.query(
    `SELECT DISTINCT canonical_id FROM documents INDEXED BY documents_canonical
     WHERE team_id = $team AND canonical_id > $after AND kind IN ('canonical', 'draft') AND deleted_at IS NULL ${byCollection}
     ORDER BY canonical_id LIMIT $limit`,
  ).values({ team: teamId, after: opts.after ?? '', limit: opts.pageSize + 1, ...(opts.collection === undefined ? {} : { collection: opts.collection }) }) as [string][]).map(([id]) => id)
  const hasMore = ids.length > opts.pageSize
  const page = ids.slice(0, opts.pageSize)
  const rows = c.query(
    `SELECT canonical_id, kind, collection, json_extract(body, '$.contentType') AS content_type, published, archived,
       json_extract(body, '$.__dirtyLocales') AS dirty, updated_at
     FROM documents WHERE team_id = ? AND canonical_id IN (SELECT value FROM json_each(?)) AND kind IN ('canonical', 'draft') AND deleted_at IS NULL`,
  ).all(teamId, JSON.stringify(page)) as Row[]
  const byId = new Map<string, { canonical?: Row; draft?: Row }>()
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
    }]
  })
  return { rows: summaries, hasMore, nextAfter: hasMore ? page.at(-1)! : null }
}
