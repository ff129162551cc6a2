/**
 * Restore routes: spec.md's `POST /content/apply-version/{activeTeam}` and contract.md's
 * `POST /content/apply-snapshot/{activeTeam}`, sharing one implementation.
 *
 * Both take their body as raw text (`parse` below) so that an empty or `null` body reaches
 * `parseBody` and gets problem details, as spec.md fixes; Elysia would otherwise answer it itself.
 */
import { Elysia, t } from 'elysia'
import { IfMatch } from '../http/schemas'
import { authGuard } from '../http/auth-guard'
import type { AppDeps } from '../deps'
import { parseBody, readRestoreRequest, SNAPSHOT_FIELDS } from '../../core/restore/request'
import { badRequest } from '../../core/errors'
import { readBodyText } from '../../core/body'
import { ApplySnapshotRequest, requestBody, restoreOpenApiResponses, restoreResponses, RestoreRequest } from './model'
import { restore } from '../../core/restore/service'

const team = t.Object({ activeTeam: t.String({ maxLength: 200 }) })
const rawText = async ({ request }: { request: Request }) => ({ raw: await readBodyText(request) })
const raw = (body: unknown) => (body as { raw: string }).raw

/** Authentication rule 2 (core/restore/service.ts `readState`): said in the document, checked in the service. */
const LIVE_RULE = 'Restoring into the draft of a published document needs `ChangeLiveContent` too (else a `403` batch list).'

export function restoreRoutes({ db }: AppDeps) {
  return new Elysia({ detail: { tags: ['restore'] } })
    .use(authGuard(db))
    .post(
      '/content/apply-version/:activeTeam',
      async ({ body, headers, caller }) => {
        const cmd = readRestoreRequest(parseBody(raw(body)) as Record<string, unknown>)
        return [await restore(db, caller, cmd, { ifMatch: headers['if-match'] })]
      },
      {
        requires: ['EditContent'],
        params: team,
        headers: IfMatch,
        parse: rawText,
        response: restoreResponses,
        detail: {
          summary: 'Restore a Published Version or a snapshot into the draft (never publishes)',
          description: LIVE_RULE,
          requestBody: requestBody(RestoreRequest),
          responses: restoreOpenApiResponses,
        },
      },
    )
    .post(
      '/content/apply-snapshot/:activeTeam',
      async ({ body, headers, caller }) => {
        const parsed = parseBody(raw(body), SNAPSHOT_FIELDS) as Record<string, unknown>
        // Same command as apply-version with `kind: "snapshot"`; the path names the kind, and a
        // `kind` that says otherwise (a revision body sent here by mistake) is refused, not ignored.
        if (parsed.kind !== undefined && parsed.kind !== 'snapshot') throw badRequest('bad_kind', 'This endpoint restores snapshots: `kind` may only be `snapshot`.')
        const cmd = readRestoreRequest({ ...parsed, kind: 'snapshot' })
        return [await restore(db, caller, cmd, { ifMatch: headers['if-match'] })]
      },
      {
        requires: ['EditContent'],
        params: team,
        headers: IfMatch,
        parse: rawText,
        response: restoreResponses,
        detail: { summary: 'Restore a snapshot into the draft; same rules and answers as apply-version', description: LIVE_RULE, requestBody: requestBody(ApplySnapshotRequest), responses: restoreOpenApiResponses },
      },
    )
}
