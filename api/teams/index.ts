/**
 * Team settings routes of contract.md (capability ManageTeam); each may send site.changed. Each
 * has a GET of ours (contract.md shows none) answering what its PUT takes, so a client can read,
 * change and send back a setting; reading takes `EditContent` (editors need the types and
 * languages) or `ManageTeam`.
 */
import { Elysia, t } from 'elysia'
import { authGuard } from '../http/auth-guard'
import { authenticate, type Caller, type Capability } from '../../core/auth'
import type { AppDeps } from '../deps'
import { ErrorBody } from '../http/schemas'
import { ContentIndexDefinition, ContentIndexResult, ContentIndexState, ContentTypeDefinition, ContentTypeInput, ContentTypeName, ContentTypeResult, LocalesInput, LocalizationInput, Me, TeamFeatures, TeamLocales } from '../../core/teams/model'
import { readFeatures, setFeatures, teamsOf } from '../../core/teams/features'
import { pushContentIndex, putContentType, readContentIndex, readContentType, readContentTypes, readLocales, readLocalization, setLocales, setLocalization } from '../../core/teams/settings'

const teamParams = t.Object({ teamId: t.String({ maxLength: 200 }) })
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }
const readErrors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody }
const readers: ['EditContent', 'ManageTeam'] = ['EditContent', 'ManageTeam']
/** Any capability at all: every member who may do anything in the team reads its UI flags. */
const members: Capability[] = ['EditContent', 'ChangeLiveContent', 'ManageWebhooks', 'ManageTeam']

export function teamRoutes({ db }: AppDeps) {
  const actor = (teamId: string, caller: Caller) => ({ teamId, userId: caller.userId })
  return new Elysia({ name: 'teams', detail: { tags: ['teams'] } })
    .use(authGuard(db))
    .get('/me', async ({ request }) => {
      const user = await authenticate(db, request.headers.get('authorization'))
      return { userId: user.id, teams: await teamsOf(db, user.id) }
    }, {
      response: { 200: Me, 401: ErrorBody },
      detail: { summary: 'Who the bearer token belongs to: the user id, and per team the capabilities, locales and UI feature flags' },
    })
    // Every member reads the flags (the editor app decides what its History drawer shows from them).
    .get('/teams/:teamId/features', async ({ params }) => await readFeatures(db, params.teamId), {
      requiresAny: members, params: teamParams, response: { 200: TeamFeatures, ...readErrors },
      detail: { summary: "The team's UI feature flags (`history`, `snapshots`); they change no endpoint's answer" },
    })
    .put('/teams/:teamId/features', async ({ params, body }) => await setFeatures(db, params.teamId, body), {
      requires: ['ManageTeam'], params: teamParams, body: TeamFeatures, response: { 200: TeamFeatures, ...errors },
      detail: { summary: 'Set the UI feature flags of the History drawer (no site.changed; no endpoint answers differently)' },
    })
    .get('/teams/:teamId/locales', async ({ params }) => await readLocales(db, params.teamId), {
      requiresAny: readers, params: teamParams, response: { 200: LocalesInput, ...readErrors },
      detail: { summary: "The team's locales and default locale, as PUT .../locales takes them" },
    })
    .get('/teams/:teamId/localization', async ({ params }) => await readLocalization(db, params.teamId), {
      requiresAny: readers, params: teamParams, response: { 200: LocalizationInput, ...readErrors },
      detail: { summary: "The team's locale fallbacks, as PUT .../localization takes them" },
    })
    .get('/teams/:teamId/content-types', async ({ params }) => await readContentTypes(db, params.teamId), {
      requiresAny: readers, params: teamParams, response: { 200: t.Array(ContentTypeDefinition), ...readErrors },
      detail: { summary: "The team's content types, by name" },
    })
    .get('/teams/:teamId/content-types/:name', async ({ params }) => await readContentType(db, params.teamId, params.name), {
      requiresAny: readers,
      params: t.Object({ teamId: t.String({ maxLength: 200 }), name: ContentTypeName }),
      response: { 200: ContentTypeDefinition, ...readErrors, 400: ErrorBody },
      detail: { summary: 'A content type as stored (`urls` spelled out): send it back changed with PUT' },
    })
    .get('/teams/:teamId/content-index', async ({ params }) => await readContentIndex(db, params.teamId), {
      requiresAny: readers, params: teamParams, response: { 200: ContentIndexState, ...readErrors },
      detail: { summary: 'The deployed content index definition and whether the index caught up with it' },
    })
    .put(
      '/teams/:teamId/locales',
      async ({ params, body, caller }) => await setLocales(db, actor(params.teamId, caller), body),
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
      async ({ params, body, caller }) => await setLocalization(db, actor(params.teamId, caller), body),
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
      async ({ params, body, caller }) => await putContentType(db, actor(params.teamId, caller), params.name, body),
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
      async ({ params, body, caller }) => await pushContentIndex(db, actor(params.teamId, caller), body),
      {
        requires: ['ManageTeam'],
        params: teamParams,
        body: ContentIndexDefinition,
        response: { 200: ContentIndexResult, ...errors },
        detail: { summary: 'Deploy the content index definition (sends site.changed `index` once the index caught up)' },
      },
    )
}
