/**
 * The page tree a publish's URL walk reads (core/events/urls.ts), all of it at once: the walk is
 * synchronous and PostgreSQL cannot answer it row by row (db/queries/events.ts `openPageRows`).
 */
import type { SQL } from 'bun'
import type { PageRow } from '../../queries/events'

/**
 * Everything the URL walk may read of `teamId`'s page tree, in two reads on `tx`: the content
 * types with URLs and every canonical (db/queries/events.ts builds the synchronous readers on them).
 */
export async function teamPageRows(tx: SQL, teamId: string): Promise<{ withUrls: string[]; canonicals: PageRow[] }> {
  const withUrls = [...(await tx`SELECT name FROM content_types WHERE team_id = ${teamId} AND urls`)].map((r: { name: string }) => r.name)
  const canonicals = [...(await tx`SELECT id, nul_safe_json(body) ->> 'contentType' AS content_type, body::text AS body, published::int AS published, deleted_at
    FROM documents WHERE team_id = ${teamId} AND kind = 'canonical'`)] as PageRow[]
  return { withUrls, canonicals }
}
