import { Elysia, t } from 'elysia'
import { authGuard } from '../http/auth-guard'
import type { AppDeps } from '../deps'
import { ErrorBody, PublishInput, PublishList } from '../http/schemas'
import { publishBatchWaiting } from '../../core/publish/service'

export function publishRoutes({ db, metrics }: AppDeps) {
  return new Elysia({ detail: { tags: ['content'] } }).use(authGuard(db)).post(
    '/content/publish/:activeTeam',
    ({ params, body, caller }) =>
      publishBatchWaiting(db, metrics, body.ids, {
        teamId: params.activeTeam, locales: body.locales, stampUserId: caller.userId, actorUserId: caller.userId, source: 'api',
      }),
    {
      requires: ['EditContent', 'ChangeLiveContent'],
      params: t.Object({ activeTeam: t.String({ maxLength: 200 }) }),
      body: PublishInput,
      response: { 200: PublishList, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
      detail: { summary: 'Batch publish: stamp, live canonical and one Published Version per id' },
    },
  )
}
