/** A snapshot's share link: a read-only preview for signed-in members of the team, and its restore. */
import { useState } from 'react'
import { Link, useSearch } from 'wouter'
import { editPath, useTeam } from '../session'
import { readOrNull } from '../doc-data'
import { ErrorNote, useLoad } from '../ui'
import { Preview } from './compare'
import { RestoreDialog, restoreBlocked } from './restore'

export function SharePreview({ teamId }: { teamId: string }) {
  const id = new URLSearchParams(useSearch()).get('id') ?? ''
  const team = useTeam(teamId)!
  const docId = id.includes('/snapshot/') ? id.slice(0, id.lastIndexOf('/snapshot/')) : id
  const live = useLoad(() => readOrNull(teamId, docId), [teamId, docId])
  const [restoring, setRestoring] = useState(false)
  const source = { kind: 'snapshot' as const, snap: { id, name: null, status: 'active' as const, createdAt: '', createdBy: '' } }
  const blocked = restoreBlocked(team, live.data?.['@metadata']?.published === true, source)
  return (
    <article aria-labelledby="share-title">
      <h1 id="share-title">Shared snapshot of {docId}</h1>
      <p className="hint">Read-only. <Link href={editPath(teamId, docId)}>Open the document</Link></p>
      <ErrorNote error={live.error} />
      <Preview teamId={teamId} docId={docId} source={source} />
      <button type="button" disabled={blocked !== null} title={blocked ?? undefined} onClick={() => setRestoring(true)}>Restore into draft…</button>
      {blocked && <p className="hint">{blocked}</p>}
      {restoring && <RestoreDialog teamId={teamId} docId={docId} team={team} source={source} open onOpenChange={setRestoring} onRestored={() => {}} />}
    </article>
  )
}
