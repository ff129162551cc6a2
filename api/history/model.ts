/** The History drawer's read (`GET /content/history/{activeTeam}`): its answer's schema. */
import { t } from 'elysia'
import { SnapshotRecord } from '../snapshots/model'
import { VersionPage } from '../versions/model'

const Locales = t.Array(t.String(), { description: 'Locale codes it carries' })

/** A snapshot as the History drawer lists it: its record and the locales it carries. */
export const HistorySnapshot = t.Composite([SnapshotRecord, t.Object({ locales: Locales })], { title: 'HistorySnapshot' })

export const HistoryResponse = t.Object({
  id: t.String({ description: 'Canonical id' }),
  draft: t.Union([
    t.Object({ id: t.String(), updatedAt: t.String(), locales: Locales, dirtyLocales: t.Array(t.String()) }),
    t.Null(),
  ]),
  scheduled: t.Union([
    t.Object({ id: t.String(), publishAt: t.String(), scheduledBy: t.String(), locales: Locales }),
    t.Null(),
  ]),
  snapshots: t.Array(HistorySnapshot, { description: 'Active snapshots, newest first' }),
  // Titled as the version list's page, so the OpenAPI document refers to that one schema (api/http/openapi-document.ts).
  versions: t.Composite([VersionPage], { title: 'VersionPage', description: 'First page of GET /content/versions (start 0, page size 25)' }),
}, { additionalProperties: false, title: 'History' })
