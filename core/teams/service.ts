/**
 * Team and content type reads every service needs; the queries live in db/queries/teams.ts (the
 * store is async: docs/architecture.md "The store is async").
 */
export { getContentType, getTeam, hasAnyTeam, listContentTypes, type ContentTypeRow } from '../../db/queries/teams'
