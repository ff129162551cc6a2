/** `GET /content/history/{activeTeam}?id=` (contract.md): the History drawer's one read. */
import { Elysia, t } from 'elysia'
import { authGuard } from '../http/auth-guard'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../http/schemas'
import { HistoryResponse } from './model'
import { getHistory } from '../../core/history/service'

export function historyRoutes({ db }: AppDeps) {
  return new Elysia({ detail: { tags: ['versions'] } }).use(authGuard(db)).get(
    '/content/history/:activeTeam',
    async ({ params, query }) => {
      return await getHistory(db, params.activeTeam, query.id)
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
