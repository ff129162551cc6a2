/** TypeBox shapes of spec.md's version row and version list page. */
import { Type as t } from '@sinclair/typebox'

export const VersionRow = t.Object({
  version: t.String({ description: 'Opaque version reference: pass it back verbatim' }),
  publishedAt: t.String({ description: 'UTC, 7 fractional digits, Z suffix' }),
  publishedBy: t.String(),
  locales: t.Array(t.String(), { description: 'Locale codes the version carries' }),
  status: t.Literal('published'),
}, { additionalProperties: false, title: 'VersionRow' })

export const VersionPage = t.Object({
  rows: t.Array(VersionRow, { description: 'Newest first' }),
  hasMore: t.Boolean({ description: 'More revisions exist beyond this page' }),
  nextStart: t.Integer({ description: 'Raw revision offset consumed; pass as the next `start`' }),
}, { additionalProperties: false, title: 'VersionPage' })
