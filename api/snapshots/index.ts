/** Snapshot routes of contract.md: create, rename, revoke. Restoring one lives in `api/restore`. */
import { Elysia, t } from 'elysia'
import { authGuard } from '../http/auth-guard'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../http/schemas'
import { CreateSnapshotInput, RenameSnapshotInput, RevokeSnapshotInput, SnapshotRecord } from './model'
import { createSnapshot, renameSnapshot, revokeSnapshot } from '../../core/snapshots/service'

const team = t.Object({ activeTeam: t.String({ maxLength: 200 }) })
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }

export function snapshotRoutes({ db }: AppDeps) {
  return new Elysia({ detail: { tags: ['snapshots'] } })
    .use(authGuard(db))
    .post(
      '/content/snapshots/:activeTeam',
      ({ params, body, set, caller }) => {
        const record = createSnapshot(db, { teamId: params.activeTeam, userId: caller.userId, ...body })
        set.status = 201
        return record
      },
      {
        requires: ['EditContent'],
        params: team,
        body: CreateSnapshotInput,
        response: { 201: SnapshotRecord, ...errors },
        detail: { summary: 'Snapshot the draft (or the canonical when there is no draft), or the Published Version `version` names' },
      },
    )
    .patch(
      '/content/snapshots/:activeTeam',
      ({ params, query, body }) => {
        return renameSnapshot(db, { teamId: params.activeTeam, id: query.id, name: body.name })
      },
      {
        requires: ['EditContent'],
        params: team,
        query: t.Object({ id: t.String({ description: 'Snapshot id' }) }, { additionalProperties: true }),
        body: RenameSnapshotInput,
        response: { 200: SnapshotRecord, ...errors },
        detail: { summary: 'Rename a snapshot' },
      },
    )
    .post(
      '/content/snapshots/revoke/:activeTeam',
      ({ params, body }) => {
        return revokeSnapshot(db, { teamId: params.activeTeam, id: body.id })
      },
      {
        requires: ['EditContent'],
        params: team,
        body: RevokeSnapshotInput,
        response: { 200: SnapshotRecord, ...errors },
        detail: { summary: 'Revoke a snapshot; it can no longer be restored (409)' },
      },
    )
}
