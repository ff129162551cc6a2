/** Team settings routes of contract.md (capability ManageTeam); each may send site.changed. */
import { Elysia, t } from 'elysia'
import { authGuard, type Caller } from '../auth'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../content/model'
import { ContentTypeField, ContentTypeName, LocaleCode as Locale } from './model'
import { pushContentIndex, putContentType, setLocales, setLocalization } from './settings'

const teamParams = t.Object({ teamId: t.String({ maxLength: 200 }) })
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }
const Settings = t.Object({ locales: t.Array(t.String()), defaultLocale: t.String(), fallbacks: t.Record(t.String(), t.String()) })

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
        body: t.Object({ locales: t.Array(Locale, { minItems: 1, maxItems: 64 }), defaultLocale: Locale }, { additionalProperties: false }),
        response: { 200: t.Object({ locales: t.Array(t.String()), defaultLocale: t.String(), fallbacks: t.Record(t.String(), t.String()) }), ...errors },
        detail: { summary: "Set the team's locales (sends site.changed `locales`)" },
      },
    )
    .put(
      '/teams/:teamId/localization',
      ({ params, body, caller }) => setLocalization(db, actor(params.teamId, caller), body),
      {
        requires: ['ManageTeam'],
        params: teamParams,
        body: t.Object({ fallbacks: t.Record(t.String(), t.String()) }, { additionalProperties: false }),
        response: { 200: Settings, ...errors },
        detail: { summary: 'Set locale fallbacks (sends site.changed `localization`)' },
      },
    )
    .put(
      '/teams/:teamId/content-types/:name',
      ({ params, body, caller }) => putContentType(db, actor(params.teamId, caller), params.name, body),
      {
        requires: ['ManageTeam'],
        params: t.Object({ teamId: t.String({ maxLength: 200 }), name: ContentTypeName }),
        body: t.Object(
          {
            name: t.Optional(t.String()),
            collection: t.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
            urls: t.Optional(t.Boolean()),
            fields: t.Array(ContentTypeField, { maxItems: 500 }),
          },
          { additionalProperties: true },
        ),
        response: { 200: t.Object({ definition: t.Record(t.String(), t.Unknown()), siteChanged: t.Boolean() }), ...errors },
        detail: { summary: 'Create or replace a content type (site.changed `template` unless only label/icon/hint/description/search/filter changed)' },
      },
    )
    .put(
      '/teams/:teamId/content-index',
      ({ params, body, caller }) => pushContentIndex(db, actor(params.teamId, caller), body),
      {
        requires: ['ManageTeam'],
        params: teamParams,
        body: t.Record(t.String(), t.Unknown()),
        response: { 200: t.Object({ indexGeneration: t.Integer() }), ...errors },
        detail: { summary: 'Deploy the content index definition (sends site.changed `index` once the index caught up)' },
      },
    )
}
