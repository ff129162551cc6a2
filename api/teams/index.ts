/** Team settings routes of contract.md (capability ManageTeam); each may send site.changed. */
import { Elysia, t } from 'elysia'
import { authGuard, type Caller } from '../auth'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../content/model'
import { ContentIndexDefinition, ContentIndexResult, ContentTypeInput, ContentTypeName, ContentTypeResult, LocalesInput, LocalizationInput, TeamLocales } from './model'
import { pushContentIndex, putContentType, setLocales, setLocalization } from './settings'

const teamParams = t.Object({ teamId: t.String({ maxLength: 200 }) })
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }

export function teamRoutes({ db }: AppDeps) {
  const actor = (teamId: string, caller: Caller) => ({ teamId, userId: caller.userId })
  return new Elysia({ name: 'teams', detail: { tags: ['teams'] } })
    .use(authGuard(db))
    .put(
      '/teams/:teamId/locales',
      ({ params, body, caller }) => setLocales(db, actor(params.teamId, caller), body),
      {
        requires: ['ManageTeam'],
        params: teamParams,
        body: LocalesInput,
        response: { 200: TeamLocales, ...errors },
        detail: { summary: "Set the team's locales (sends site.changed `locales`)" },
      },
    )
    .put(
      '/teams/:teamId/localization',
      ({ params, body, caller }) => setLocalization(db, actor(params.teamId, caller), body),
      {
        requires: ['ManageTeam'],
        params: teamParams,
        body: LocalizationInput,
        response: { 200: TeamLocales, ...errors },
        detail: { summary: 'Set locale fallbacks (sends site.changed `localization`)' },
      },
    )
    .put(
      '/teams/:teamId/content-types/:name',
      ({ params, body, caller }) => putContentType(db, actor(params.teamId, caller), params.name, body),
      {
        requires: ['ManageTeam'],
        params: t.Object({ teamId: t.String({ maxLength: 200 }), name: ContentTypeName }),
        body: ContentTypeInput,
        response: { 200: ContentTypeResult, ...errors },
        detail: { summary: 'Create or replace a content type (site.changed `template` unless only label/icon/hint/description/search/filter changed)' },
      },
    )
    .put(
      '/teams/:teamId/content-index',
      ({ params, body, caller }) => pushContentIndex(db, actor(params.teamId, caller), body),
      {
        requires: ['ManageTeam'],
        params: teamParams,
        body: ContentIndexDefinition,
        response: { 200: ContentIndexResult, ...errors },
        detail: { summary: 'Deploy the content index definition (sends site.changed `index` once the index caught up)' },
      },
    )
}
