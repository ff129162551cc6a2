/** Version routes of spec.md: list and preview Published Versions. */
import { Elysia, t } from 'elysia'
import { authGuard } from '../http/auth-guard'
import type { AppDeps } from '../deps'
import { Document } from '../../core/documents/model'
import { ErrorBody } from '../http/schemas'
import { VersionPage } from './model'
import { getVersionBody, listVersions, parsePaging, requireCanonical } from '../../core/versions/service'

const team = t.Object({ activeTeam: t.String({ maxLength: 200 }) })
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }

export function versionRoutes({ db }: AppDeps) {
  return new Elysia({ detail: { tags: ['versions'] } })
    .use(authGuard(db))
    .get(
      '/content/versions/:activeTeam',
      async ({ params, query }) => {
        const row = await requireCanonical(db, params.activeTeam, query.id)
        const { start, pageSize } = parsePaging(query.start, query.pageSize)
        return await listVersions(db, params.activeTeam, row.id, start, pageSize)
      },
      {
        requires: ['EditContent'],
        params: team,
        // Query values stay strings so that every refusal gets spec.md's code, not a generic 422.
        query: t.Object({
          id: t.String({ description: 'Canonical id' }),
          start: t.Optional(t.String({ description: 'Raw revision offset, default 0' })),
          pageSize: t.Optional(t.String({ description: 'Default 25, capped at 100' })),
        }, { additionalProperties: true }),
        response: { 200: VersionPage, ...errors },
        detail: {
          summary: 'List Published Versions of a canonical, newest first',
          // Documented as the integers they are; validated as text so each refusal is `bad_paging`.
          // Listed whole: given parameters replace the generated ones, the path's among them.
          parameters: [
            { in: 'path', name: 'activeTeam', required: true, schema: { type: 'string', maxLength: 200 } },
            { in: 'query', name: 'id', required: true, description: 'Canonical id', schema: { type: 'string' } },
            { in: 'query', name: 'start', description: 'Raw revision offset (nextStart of the previous page)', schema: { type: 'integer', minimum: 0, default: 0 } },
            { in: 'query', name: 'pageSize', description: 'Rows per page, capped at 100', schema: { type: 'integer', minimum: 1, default: 25 } },
          ],
        },
      },
    )
    .get(
      '/content/version/:activeTeam',
      async ({ params, query }) => {
        const row = await requireCanonical(db, params.activeTeam, query.id)
        return await getVersionBody(db, params.activeTeam, row.id, query.version)
      },
      {
        requires: ['EditContent'],
        params: team,
        query: t.Object({ id: t.String({ description: 'Canonical id' }), version: t.String({ description: 'Opaque version reference: the `version` of a version list row, passed back verbatim' }) }, { additionalProperties: true }),
        response: { 200: Document, ...errors },
        detail: { summary: 'Read one Published Version for preview' },
      },
    )
}
