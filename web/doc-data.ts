/** Reading the documents the editor shows: the draft, the live canonical, versions and snapshots. */
import { api, ok, ApiProblem, draftOf, type Doc, type Schemas } from './api/client'

export type Loaded = Doc & { '@metadata'?: { '@change-vector'?: string; published?: boolean; archived?: boolean } }

/** A document by id, or null when the api answers 404. */
export async function readOrNull(teamId: string, id: string): Promise<Loaded | null> {
  try {
    return (await ok(api.GET('/content/{activeTeam}', { params: { path: { activeTeam: teamId }, query: { id } } }))) as Loaded
  } catch (e) {
    if (e instanceof ApiProblem && e.status === 404) return null
    throw e
  }
}

export const etagOf = (doc: Loaded | null) => (doc?.['@metadata']?.['@change-vector'] ? JSON.stringify(doc['@metadata']['@change-vector']) : undefined)

/** What a History row names: the draft, the live document, the scheduled publish, a version or a snapshot. */
export type Source =
  | { kind: 'draft' }
  | { kind: 'live' }
  | { kind: 'scheduled' }
  | { kind: 'version'; row: Schemas['VersionRow']; label?: string }
  | { kind: 'snapshot'; snap: Pick<Schemas['HistorySnapshot'], 'id' | 'name' | 'status' | 'createdAt' | 'createdBy'> & { locales?: string[] } }

export const sourceKey = (s: Source) => (s.kind === 'version' ? `v:${s.row.version}` : s.kind === 'snapshot' ? `s:${s.snap.id}` : s.kind)

export function sourceLabel(s: Source): string {
  switch (s.kind) {
    case 'draft': return 'Current draft'
    case 'live': return 'Live (published) document'
    case 'scheduled': return 'Scheduled publish'
    case 'version': return s.label ?? `Version of ${new Date(s.row.publishedAt).toLocaleString()} by ${s.row.publishedBy}`
    case 'snapshot': return `Snapshot ${s.snap.name ? `"${s.snap.name}"` : s.snap.id.slice(s.snap.id.lastIndexOf('/') + 1)}`
  }
}

/** The body a row names (the draft falls back to the live document when there is none). */
export async function loadSource(teamId: string, docId: string, s: Source): Promise<Doc | null> {
  switch (s.kind) {
    case 'draft': return (await readOrNull(teamId, draftOf(docId))) ?? (await readOrNull(teamId, docId))
    case 'live': return readOrNull(teamId, docId)
    case 'scheduled': return readOrNull(teamId, `${docId}/scheduled`)
    case 'version': return (await ok(api.GET('/content/version/{activeTeam}', { params: { path: { activeTeam: teamId }, query: { id: docId, version: s.row.version } } }))) as Doc
    case 'snapshot': return readOrNull(teamId, s.snap.id)
  }
}

/** A field value as one line of text (never HTML): strings as they are, anything else as JSON. */
export const asText = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v))
