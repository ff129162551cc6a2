/** Snapshots in the History drawer: create (or "Share" a version), copy the link, rename, revoke. */
import { useState } from 'react'
import { api, ok, type Schemas } from '../api/client'
import { teamPath } from '../session'
import { ConfirmButton, ErrorNote, Modal } from '../ui'

type Snap = Schemas['SnapshotRecord']

export const shareLink = (teamId: string, snapshotId: string) => `${location.origin}${teamPath(teamId, `/share?id=${encodeURIComponent(snapshotId)}`)}`

function CopyLink({ teamId, id }: { teamId: string; id: string }) {
  const [copied, setCopied] = useState(false)
  const link = shareLink(teamId, id)
  return (
    <span className="copy-link">
      {/* Labelled on the input itself: the same snapshot's link may be on screen twice (drawer row and dialog). */}
      <input aria-label="Share link" readOnly value={link} onFocus={(e) => e.target.select()} />
      <button type="button" onClick={() => navigator.clipboard?.writeText(link).then(() => setCopied(true), () => setCopied(false))}>Copy link</button>
      {copied && <span role="status">Copied.</span>}
    </span>
  )
}

/** Create a snapshot of the draft, or with `version`, of that Published Version ("Share"). */
export function CreateSnapshot({ teamId, docId, version, label, onCreated }: { teamId: string; docId: string; version?: string; label?: string; onCreated: (r: Snap) => void }) {
  const [open, setOpen] = useState(false)
  const [name, setName] = useState('')
  const [expires, setExpires] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [created, setCreated] = useState<Snap | null>(null)
  const create = async (e: React.FormEvent) => {
    e.preventDefault()
    setError(null)
    try {
      const r = await ok(api.POST('/content/snapshots/{activeTeam}', { params: { path: { activeTeam: teamId } }, body: { documentId: docId, ...(version ? { version } : {}), name: name.trim() || null, expiresAt: expires ? new Date(expires).toISOString() : null } }))
      setCreated(r)
      onCreated(r)
    } catch (err) {
      setError(err)
    }
  }
  return (
    <>
      <button type="button" onClick={() => { setCreated(null); setOpen(true) }} aria-label={label}>{version ? 'Share' : 'New snapshot'}</button>
      <Modal open={open} onOpenChange={setOpen} title={version ? 'Share this version' : 'New snapshot of the draft'}
        description="A snapshot is a frozen copy that team members can open read-only through its link, and restore. The live site does not change.">
        {created ? (
          <>
            <p role="status">Snapshot created.</p>
            <CopyLink teamId={teamId} id={created.id} />
          </>
        ) : (
          <form onSubmit={create}>
            <label htmlFor="snap-name">Name (optional)</label>
            <input id="snap-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
            <label htmlFor="snap-expiry">Expires (optional)</label>
            <input id="snap-expiry" type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
            <ErrorNote error={error} />
            <div className="actions"><button type="submit" className="primary">Create snapshot</button></div>
          </form>
        )}
      </Modal>
    </>
  )
}

/** Copy link, rename and revoke for one snapshot. */
export function SnapshotControls({ teamId, snap, onChanged }: { teamId: string; snap: Snap; onChanged: (r: Snap) => void }) {
  const [renaming, setRenaming] = useState(false)
  const [name, setName] = useState(snap.name ?? '')
  const [error, setError] = useState<unknown>(null)
  const rename = async (e: React.FormEvent) => {
    e.preventDefault()
    setError(null)
    try {
      onChanged(await ok(api.PATCH('/content/snapshots/{activeTeam}', { params: { path: { activeTeam: teamId }, query: { id: snap.id } }, body: { name: name.trim() || null } })))
      setRenaming(false)
    } catch (err) {
      setError(err)
    }
  }
  return (
    <div className="row-actions">
      {snap.status === 'active' && <CopyLink teamId={teamId} id={snap.id} />}
      <button type="button" onClick={() => setRenaming(true)} aria-label={`Rename snapshot ${snap.name ?? snap.id}`}>Rename</button>
      {snap.status === 'active' && (
        <ConfirmButton label="Revoke" title="Revoke this snapshot?" danger
          consequence="Its link stops working for restoring, and it can no longer be restored. The live site does not change."
          action={async () => onChanged(await ok(api.POST('/content/snapshots/revoke/{activeTeam}', { params: { path: { activeTeam: teamId } }, body: { id: snap.id } })))} />
      )}
      <Modal open={renaming} onOpenChange={setRenaming} title="Rename snapshot">
        <form onSubmit={rename}>
          <label htmlFor={`rename-${snap.id}`}>New name</label>
          <input id={`rename-${snap.id}`} value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
          <ErrorNote error={error} />
          <div className="actions"><button type="submit" className="primary">Rename</button></div>
        </form>
      </Modal>
    </div>
  )
}
