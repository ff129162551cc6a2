/** A team's documents by collection: keyset paging ("Load more"), a filter, a status badge each. */
import { useEffect, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { api, ok, type Schemas } from '../api/client'
import { can, editPath, useTeam } from '../session'
import { Badge, ErrorNote, useLoad, When } from '../ui'

type Row = Schemas['DocumentSummary']

/** The badge of a row: draft only, published, published with unpublished changes, archived. */
export function StatusBadge({ row }: { row: Pick<Row, 'archived' | 'published' | 'draft' | 'dirtyLocales'> }) {
  if (row.archived) return <Badge tone="archived">Archived</Badge>
  if (row.published && row.draft && row.dirtyLocales.length > 0) return <Badge tone="changed">Published, unpublished changes ({row.dirtyLocales.join(', ')})</Badge>
  if (row.published) return <Badge tone="live">Published</Badge>
  return <Badge tone="draft">Draft only</Badge>
}

/** A scheduled publish, beside the status: when the draft goes live. */
export function ScheduledBadge({ at }: { at: string | null | undefined }) {
  if (!at) return null
  return <Badge tone="scheduled">Scheduled: <When at={at} /></Badge>
}

export function Documents({ teamId }: { teamId: string }) {
  const team = useTeam(teamId)
  const types = useLoad(() => ok(api.GET('/teams/{teamId}/content-types', { params: { path: { teamId } } })), [teamId])
  const collections = [...new Set((types.data ?? []).map((t) => t.collection))]
  const [collection, setCollection] = useState('')
  const [rows, setRows] = useState<Row[]>([])
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [loading, setLoading] = useState(false)
  const [filter, setFilter] = useState('')

  const load = async (after: string | null) => {
    setLoading(true)
    setError(null)
    try {
      const page = await ok(api.GET('/content/list/{activeTeam}', { params: { path: { activeTeam: teamId }, query: { collection: collection || undefined, after: after ?? undefined, pageSize: 50 } } }))
      setRows((r) => (after ? [...r, ...page.rows] : page.rows))
      setNext(page.hasMore ? page.nextAfter : null)
    } catch (e) {
      setError(e)
    } finally {
      setLoading(false)
    }
  }
  useEffect(() => { void load(null) }, [teamId, collection])

  const needle = filter.trim().toLowerCase()
  const shown = rows.filter((r) => r.id.toLowerCase().includes(needle) || (r.title ?? '').toLowerCase().includes(needle))
  return (
    <section aria-labelledby="docs-title">
      <div className="toolbar">
        <h1 id="docs-title">Documents</h1>
        <label>
          Collection{' '}
          <select value={collection} onChange={(e) => setCollection(e.target.value)}>
            <option value="">All collections</option>
            {collections.map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </label>
        <label>
          Filter by id or title{' '}
          <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="e.g. pages/ or Home" />
        </label>
      </div>
      <ErrorNote error={types.error ?? error} />
      {can(team, 'EditContent') && types.data && <NewDocument teamId={teamId} types={types.data} />}
      <table className="list">
        <caption className="sr-only">Documents of team {teamId}</caption>
        <thead><tr><th scope="col">Document</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.id}>
              <td>
                <Link href={editPath(teamId, r.id)}>{r.title ?? r.id}</Link>
                {r.title !== null && <div className="doc-id">{r.id}</div>}
              </td>
              <td>{r.contentType}</td>
              <td className="badges"><StatusBadge row={r} /> <ScheduledBadge at={r.scheduledAt} /></td>
              <td><When at={r.updatedAt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
      {!loading && shown.length === 0 && <p>No documents{filter ? ` with "${filter.trim()}" in their id or title among the ${rows.length} loaded` : ''}.</p>}
      {loading && <p role="status">Loading…</p>}
      {next && <button type="button" onClick={() => load(next)} disabled={loading}>Load more documents</button>}
    </section>
  )
}

/** Starts a document as a draft (nothing goes live until it is published). */
function NewDocument({ teamId, types }: { teamId: string; types: Schemas['ContentTypeDefinition'][] }) {
  const [, navigate] = useLocation()
  const [type, setType] = useState(types[0]?.name ?? '')
  const [id, setId] = useState('')
  const [error, setError] = useState<unknown>(null)
  const create = async (e: React.FormEvent) => {
    e.preventDefault()
    setError(null)
    const def = types.find((t) => t.name === type)
    const docId = id.trim()
    try {
      await ok(api.POST('/content/{activeTeam}', { params: { path: { activeTeam: teamId } }, body: { id: `${docId}/draft`, contentType: type, fields: {}, locales: {} } }))
      navigate(editPath(teamId, docId))
    } catch (err) {
      setError(err)
    }
    void def
  }
  return (
    <details className="new-doc">
      <summary>New document</summary>
      <form onSubmit={create}>
        <label>Content type <select value={type} onChange={(e) => setType(e.target.value)}>{types.map((t) => <option key={t.name} value={t.name}>{t.name}</option>)}</select></label>
        <label>Document id <input value={id} onChange={(e) => setId(e.target.value)} placeholder={`${types.find((t) => t.name === type)?.collection ?? 'pages'}/new-page`} required /></label>
        <button type="submit" className="primary">Create draft</button>
      </form>
      <ErrorNote error={error} />
    </details>
  )
}
