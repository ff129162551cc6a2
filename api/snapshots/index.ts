/**
 * Snapshot routes of contract.md (create, rename, revoke) and ours: the list of a document's
 * snapshots whatever their status (History lists active ones only). Restoring one lives in `api/restore`.
 */
import { Elysia, t } from 'elysia'
import { authGuard } from '../http/auth-guard'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../http/schemas'
import { CreateSnapshotInput, RenameSnapshotInput, RevokeSnapshotInput, SnapshotList, SnapshotRecord } from './model'
import { createSnapshot, listSnapshots, renameSnapshot, revokeSnapshot } from '../../core/snapshots/service'

const team = t.Object({ activeTeam: t.String({ maxLength: 200 }) })
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }

export function snapshotRoutes({ db }: AppDeps) {
  return new Elysia({ detail: { tags: ['snapshots'] } })
    .use(authGuard(db))
    .get(
      '/content/snapshots/:activeTeam',
      async ({ params, query }) => await listSnapshots(db, params.activeTeam, query.documentId || undefined),
      {
        requires: ['EditContent'],
        params: team,
        // Checked by the service, so a missing one is `400 missing_id` as elsewhere; unknown parameters are ignored.
        query: t.Object({ documentId: t.Optional(t.String({ maxLength: 512, description: 'Canonical id' })) }, { additionalProperties: true }),
        response: { 200: SnapshotList, ...errors },
        detail: { summary: "Every snapshot of a document with its status (active, expired, revoked), newest first; History lists the active ones only" },
      },
    )
    .post(
      '/content/snapshots/:activeTeam',
      async ({ params, body, set, caller }) => {
        const record = await createSnapshot(db, { teamId: params.activeTeam, userId: caller.userId, ...body })
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
      async ({ params, query, body }) => {
        return await renameSnapshot(db, { teamId: params.activeTeam, id: query.id, name: body.name })
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
      async ({ params, body }) => {
        return await revokeSnapshot(db, { teamId: params.activeTeam, id: body.id })
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
