import { Elysia, t } from 'elysia'
import { authGuard } from '../auth'
import type { AppDeps } from '../deps'
import { BatchList, ErrorBody, PublishInput, type BatchItem } from '../content/model'
import { draftId, isStorableId } from '../content/ids'
import { loadLive } from '../content/service'
import type { Db } from '../../db/client'
import { publishOne } from './service'

/** The parent page a publish of `id` will have: its draft's, else its canonical's. */
function parentOf(db: Db, teamId: string, id: string): string | null {
  if (!isStorableId(id)) return null
  const row = loadLive(db, teamId, draftId(id)) ?? loadLive(db, teamId, id)
  const parent = (row?.body.fields as { parent?: unknown } | undefined)?.parent
  return typeof parent === 'string' && parent !== '' ? parent : null
}

/**
 * The order to publish a batch in (indices into `ids`): a page after its parent when both are
 * in the batch, otherwise as requested. A child published before its parent would get its
 * event while the parent is not live yet, so no URL, and no later event would name its path.
 * The answers keep the request's order. A parent cycle (no page in it has a URL) is broken
 * where the walk meets it.
 */
export function parentsFirst(ids: readonly string[], parentOf: (id: string) => string | null): number[] {
  if (ids.length < 2) return ids.map((_, i) => i)
  const firstIndex = new Map<string, number>()
  ids.forEach((id, i) => firstIndex.has(id) || firstIndex.set(id, i))
  const order: number[] = []
  const state = new Array<'visiting' | 'done' | undefined>(ids.length)
  const visit = (i: number) => {
    if (state[i]) return // done, or on the walk already (a cycle)
    state[i] = 'visiting'
    const parent = parentOf(ids[i]!)
    const p = parent === null ? undefined : firstIndex.get(parent)
    if (p !== undefined && p !== i) visit(p)
    state[i] = 'done'
    order.push(i)
  }
  ids.forEach((_, i) => visit(i))
  return order
}

export function publishRoutes({ db, metrics }: AppDeps) {
  return new Elysia({ detail: { tags: ['content'] } }).use(authGuard(db)).post(
    '/content/publish/:activeTeam',
    ({ params, body, caller }) => {
      const answers: BatchItem[] = []
      for (const i of parentsFirst(body.ids, (id) => parentOf(db, params.activeTeam, id))) {
        answers[i] = publishOne(db, metrics, {
          teamId: params.activeTeam, id: body.ids[i]!, locales: body.locales,
          stampUserId: caller.userId, actorUserId: caller.userId, source: 'api',
        })
      }
      return answers
    },
    {
      requires: ['EditContent', 'ChangeLiveContent'],
      params: t.Object({ activeTeam: t.String({ maxLength: 200 }) }),
      body: PublishInput,
      response: { 200: BatchList, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
      detail: { summary: 'Batch publish: stamp, live canonical and one Published Version per id' },
    },
  )
}
