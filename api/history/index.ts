/** `GET /content/history/{activeTeam}?id=` (contract.md): the History drawer's one read. */
import { Elysia, t } from 'elysia'
import { authGuard } from '../auth'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../content/model'
import { SnapshotRecord } from '../snapshots/model'
import { getHistory } from './service'
import { VersionPage } from '../versions/model'

const Locales = t.Array(t.String(), { description: 'Locale codes it carries' })

export const HistoryResponse = t.Object({
  id: t.String({ description: 'Canonical id' }),
  draft: t.Union([
    t.Object({ id: t.String(), updatedAt: t.String(), locales: Locales, dirtyLocales: t.Array(t.String()) }),
    t.Null(),
  ]),
  scheduled: t.Union([
    t.Object({ id: t.String(), publishAt: t.String(), scheduledBy: t.String(), locales: Locales }),
    t.Null(),
  ]),
  snapshots: t.Array(t.Composite([SnapshotRecord, t.Object({ locales: Locales })]), { description: 'Active snapshots, newest first' }),
  versions: t.Composite([VersionPage], { description: 'First page of GET /content/versions (start 0, page size 25)' }),
})

export function historyRoutes({ db }: AppDeps) {
  return new Elysia({ detail: { tags: ['versions'] } }).use(authGuard(db)).get(
    '/content/history/:activeTeam',
    ({ params, query }) => {
      return getHistory(db, params.activeTeam, query.id)
    },
    {
      requires: ['EditContent'],
      params: t.Object({ activeTeam: t.String({ maxLength: 200 }) }),
      // Unknown query parameters are ignored, as on the version list.
      query: t.Object({ id: t.String({ description: 'Canonical id' }) }, { additionalProperties: true }),
      response: { 200: HistoryResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      detail: { summary: 'History: draft, scheduled publish, active snapshots and the first page of versions' },
    },
  )
}
