/** A snapshot's share link: a read-only preview for signed-in members of the team, and its restore. */
import { useState } from 'react'
import { Link, useSearch } from 'wouter'
import { api, ok } from '../api/client'
import { editPath, useTeam } from '../session'
import { readOrNull } from '../doc-data'
import { Badge, ErrorNote, useLoad, When } from '../ui'
import { Preview } from './compare'
import { RestoreDialog, restoreBlocked } from './restore'

export function SharePreview({ teamId }: { teamId: string }) {
  const id = new URLSearchParams(useSearch()).get('id') ?? ''
  const team = useTeam(teamId)!
  const docId = id.includes('/snapshot/') ? id.slice(0, id.lastIndexOf('/snapshot/')) : id
  const live = useLoad(() => readOrNull(teamId, docId), [teamId, docId])
  const [restoring, setRestoring] = useState(false)
  // The record says whether the link still restores: a revoked or expired snapshot shows so after any reload.
  const list = useLoad(() => ok(api.GET('/content/snapshots/{activeTeam}', { params: { path: { activeTeam: teamId }, query: { documentId: docId } } })), [teamId, docId])
  const record = list.data?.snapshots.find((x) => x.id === id)
  const source = { kind: 'snapshot' as const, snap: record ?? { id, name: null, status: 'active' as const, createdAt: '', createdBy: '' } }
  const blocked = restoreBlocked(team, live.data?.['@metadata']?.published === true, source)
  return (
    <article aria-labelledby="share-title">
      <h1 id="share-title">Shared snapshot of {docId}</h1>
      <p className="hint">Read-only. <Link href={editPath(teamId, docId)}>Open the document</Link></p>
      {record && (
        <p>{record.name ? <strong>{record.name}</strong> : '(unnamed)'} <Badge tone={record.status === 'active' ? 'live' : 'archived'}>{record.status}</Badge> by {record.createdBy}, <When at={record.createdAt} />
          {record.revokedAt && <> · revoked <When at={record.revokedAt} /></>}{record.status === 'expired' && record.expiresAt && <> · expired <When at={record.expiresAt} /></>}</p>
      )}
      <ErrorNote error={live.error ?? list.error} />
      <Preview teamId={teamId} docId={docId} source={source} />
      <button type="button" disabled={blocked !== null || !record} title={blocked ?? undefined} onClick={() => setRestoring(true)}>Restore into draft…</button>
      {blocked && <p className="hint">{blocked}</p>}
      {restoring && <RestoreDialog teamId={teamId} docId={docId} team={team} source={source} open onOpenChange={setRestoring} onRestored={() => {}} />}
    </article>
  )
}
