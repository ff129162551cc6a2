/**
 * The team's documents, one row per canonical id (docs/api/content.md#routes): what an editor's
 * list view or an assistant needs to find a document and see whether it has unpublished work.
 * Keyset paging on the canonical id through the `documents_canonical` index (the
 * `documents_collection` index for one collection), so a deep page costs what a first one does.
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
  title: unknown
}

/** The ids of one page of the whole team, through `documents_canonical`. */
export const LIST_IDS_SQL = `SELECT DISTINCT canonical_id FROM documents INDEXED BY documents_canonical
  WHERE team_id = $team AND canonical_id > $after AND kind IN ('canonical', 'draft') AND deleted_at IS NULL
  ORDER BY canonical_id LIMIT $limit`

/**
 * The ids of one page of one collection: a seek into the partial `documents_collection` index
 * (team, collection, canonical id), which holds only the rows this query keeps, so a page reads
 * about as many entries as it returns whatever the team's size. Its WHERE repeats the index's.
 */
export const LIST_COLLECTION_IDS_SQL = `SELECT DISTINCT canonical_id FROM documents INDEXED BY documents_collection
  WHERE team_id = $team AND collection = $collection AND canonical_id > $after AND kind IN ('canonical', 'draft') AND deleted_at IS NULL
  ORDER BY canonical_id LIMIT $limit`

/** The scheduled publishes of a page's ids: a schedule is keyed by (team, document id), so one primary-key probe per row. */
export const LIST_SCHEDULES_SQL = 'SELECT document_id, publish_at FROM schedules WHERE team_id = ? AND document_id IN (SELECT value FROM json_each(?))'

/**
 * One page of the team's documents in canonical id order, after `after` (exclusive), optionally
 * of one collection. Soft-deleted documents are left out, as reads leave them out.
 */
export function listDocuments(db: Db, teamId: string, opts: { collection?: string; after?: string; pageSize: number }): DocumentList {
  const c = db.$client
  const found = ((opts.collection === undefined
    ? c.query(LIST_IDS_SQL).values({ team: teamId, after: opts.after ?? '', limit: opts.pageSize + 1 })
    : c.query(LIST_COLLECTION_IDS_SQL).values({ team: teamId, collection: opts.collection, after: opts.after ?? '', limit: opts.pageSize + 1 })
  ) as [string][]).map(([id]) => id)
  const hasMore = found.length > opts.pageSize
  const page = found.slice(0, opts.pageSize)
  const ids = JSON.stringify(page)
  // The title is read in the team's default language: the language every document must have.
  const team = c.query('SELECT default_locale FROM teams WHERE id = ?').get(teamId) as { default_locale: string } | null
  const locale = `$.locales."${(team?.default_locale ?? '').replace(/"/g, '')}"`
  const rows = c.query(
    `SELECT canonical_id, kind, collection, json_extract(body, '$.contentType') AS content_type, published, archived,
       json_extract(body, '$.__dirtyLocales') AS dirty, updated_at,
       coalesce(json_extract(body, $title), json_extract(body, $name)) AS title
     FROM documents WHERE team_id = $team AND canonical_id IN (SELECT value FROM json_each($ids)) AND kind IN ('canonical', 'draft') AND deleted_at IS NULL`,
  ).all({ team: teamId, ids, title: `${locale}.title`, name: `${locale}.name` }) as Row[]
  const scheduled = new Map((c.query(LIST_SCHEDULES_SQL).values(teamId, ids) as [string, number][]).map(([id, at]) => [id, new Date(at).toISOString()]))
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
      title: typeof shown.title === 'string' ? shown.title : null,
      scheduledAt: scheduled.get(id) ?? null,
    }]
  })
  return { rows: summaries, hasMore, nextAfter: hasMore ? page.at(-1)! : null }
}
