/**
 * The History drawer (spec.md): the current draft, any scheduled publish, the snapshots (team
 * flag `snapshots`; every one with its status, from GET /content/snapshots, since History lists
 * active ones only), then the Published Versions newest first with who and when, and "Load
 * more" (`nextStart`). The editor shows it only when the team flag `history` is on.
 */
import * as Dialog from '@radix-ui/react-dialog'
import { useState } from 'react'
import { api, ok, type Schemas } from '../api/client'
import { sourceLabel, type Source } from '../doc-data'
import { useTeam } from '../session'
import { Badge, ErrorNote, Modal, When } from '../ui'
import { CompareView, Preview } from './compare'
import { RestoreDialog, restoreBlocked } from './restore'
import { SnapshotControls, CreateSnapshot } from './snapshots'

type History = Schemas['History']
type View = { mode: 'preview' | 'compare'; source: Source } | { mode: 'restore'; source: Extract<Source, { kind: 'version' | 'snapshot' }> } | null

export function HistoryDrawer({ teamId, docId, published, onRestored, hasEdits }: { teamId: string; docId: string; published: boolean; onRestored: () => void; hasEdits: boolean }) {
  const team = useTeam(teamId)!
  const [open, setOpen] = useState(false)
  const [history, setHistory] = useState<History | null>(null)
  const [more, setMore] = useState<Schemas['VersionRow'][]>([])
  const [next, setNext] = useState<{ hasMore: boolean; nextStart: number } | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [view, setView] = useState<View>(null)
  const [touched, setTouched] = useState<Record<string, Schemas['SnapshotRecord']>>({})
  const [allSnapshots, setAllSnapshots] = useState<Schemas['SnapshotListItem'][] | null>(null)
  const showSnapshots = team.features.snapshots

  const load = async () => {
    setError(null)
    try {
      const [h, list] = await Promise.all([
        ok(api.GET('/content/history/{activeTeam}', { params: { path: { activeTeam: teamId }, query: { id: docId } } })),
        showSnapshots ? ok(api.GET('/content/snapshots/{activeTeam}', { params: { path: { activeTeam: teamId }, query: { documentId: docId } } })) : null,
      ])
      setHistory(h)
      setAllSnapshots(list?.snapshots ?? null)
      setTouched({})
      setMore([])
      setNext({ hasMore: h.versions.hasMore, nextStart: h.versions.nextStart })
    } catch (e) {
      setError(e)
    }
  }
  const loadMore = async () => {
    if (!next) return
    try {
      const page = await ok(api.GET('/content/versions/{activeTeam}', { params: { path: { activeTeam: teamId }, query: { id: docId, start: next.nextStart } } }))
      setMore((m) => [...m, ...page.rows])
      setNext({ hasMore: page.hasMore, nextStart: page.nextStart })
    } catch (e) {
      setError(e)
    }
  }
  const versions = [...(history?.versions.rows ?? []), ...more]
  const snapshots = [...(allSnapshots ?? history?.snapshots ?? [])].map((s) => ({ ...s, ...(touched[s.id] ?? {}) }))
  const gone = Object.values(touched).filter((t) => !snapshots.some((s) => s.id === t.id))
  const rows: Source[] = [
    { kind: 'draft' },
    ...(history?.scheduled ? [{ kind: 'scheduled' as const }] : []),
    ...(showSnapshots ? snapshots.map((snap) => ({ kind: 'snapshot' as const, snap })) : []),
    ...versions.map((row, i) => ({ kind: 'version' as const, row, label: `${i === 0 && published ? 'Published' : 'Version'} ${new Date(row.publishedAt).toLocaleString()} by ${row.publishedBy}` })),
  ]
  const changed = (r: Schemas['SnapshotRecord']) => setTouched((t) => ({ ...t, [r.id]: r }))
  const rowActions = (s: Source, name: string, extra?: React.ReactNode) => {
    const blocked = s.kind === 'version' || s.kind === 'snapshot' ? restoreBlocked(team, published, s) : null
    return (
      <div className="row-actions">
        <button type="button" onClick={() => setView({ mode: 'preview', source: s })} aria-label={`Preview ${name}`}>Preview</button>
        <button type="button" onClick={() => setView({ mode: 'compare', source: s })} aria-label={`Compare ${name}`}>Compare</button>
        {(s.kind === 'version' || s.kind === 'snapshot') && (
          <button type="button" disabled={blocked !== null} title={blocked ?? undefined} aria-label={`Restore ${name}`} onClick={() => setView({ mode: 'restore', source: s })}>Restore…</button>
        )}
        {extra}
        {blocked && <span className="hint">{blocked}</span>}
      </div>
    )
  }

  return (
    <Dialog.Root open={open} onOpenChange={(o) => { setOpen(o); if (o) void load() }}>
      <Dialog.Trigger asChild><button type="button">History</button></Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="drawer" aria-describedby="history-desc">
          <Dialog.Title>History of {docId}</Dialog.Title>
          <p id="history-desc" className="hint">Preview or compare any row; restoring copies it into the draft and never publishes.{hasEdits ? ' You have unsaved changes in the editor: save them before restoring.' : ''}</p>
          <Dialog.Close asChild><button className="close" aria-label="Close history">×</button></Dialog.Close>
          <ErrorNote error={error} />
          {!history && !error && <p role="status">Loading history…</p>}
          {history && (
            <ol className="timeline" aria-label="History rows">
              <li className="row">
                <div><strong>Current draft</strong> {history.draft ? <>saved <When at={history.draft.updatedAt} />; {history.draft.locales.join(', ')}; unpublished: {history.draft.dirtyLocales.join(', ') || 'none'}</> : <span>no draft (the live document)</span>}</div>
                {rowActions({ kind: 'draft' }, 'current draft')}
              </li>
              {history.scheduled && (
                <li className="row">
                  <div><Badge tone="scheduled">Scheduled</Badge> for <When at={history.scheduled.publishAt} /> by {history.scheduled.scheduledBy}</div>
                  {rowActions({ kind: 'scheduled' }, 'scheduled publish')}
                </li>
              )}
              {showSnapshots && (
                <li className="row group">
                  <h3>Snapshots</h3>
                  <CreateSnapshot teamId={teamId} docId={docId} onCreated={(r) => { changed(r); void load() }} />
                  {snapshots.length === 0 && gone.length === 0 && <p className="hint">No snapshots yet.</p>}
                  <ul>
                    {[...snapshots, ...gone].map((snap) => (
                      <li key={snap.id} className="row">
                        <div><strong>{snap.name ?? '(unnamed)'}</strong> <Badge tone={snap.status === 'active' ? 'live' : 'archived'}>{snap.status}</Badge> by {snap.createdBy}, <When at={snap.createdAt} />{snap.expiresAt && <> · {snap.status === 'expired' ? 'expired' : 'expires'} <When at={snap.expiresAt} /></>}{'revokedAt' in snap && typeof snap.revokedAt === 'string' && <> · revoked <When at={snap.revokedAt} /></>}</div>
                        {rowActions({ kind: 'snapshot', snap }, `snapshot ${snap.name ?? snap.id}`)}
                        <SnapshotControls teamId={teamId} snap={snap} onChanged={changed} />
                      </li>
                    ))}
                  </ul>
                </li>
              )}
              <li className="row group">
                <h3>Published Versions</h3>
                {versions.length === 0 && <p className="hint">Never published.</p>}
                <ul aria-label="Published Versions">
                  {versions.map((v, i) => {
                    const label = `${i === 0 && published ? 'Published' : 'Version'} of ${new Date(v.publishedAt).toLocaleString()}`
                    return (
                      <li key={v.version} className="row">
                        <div>{i === 0 && published ? <Badge tone="live">Live</Badge> : null} <When at={v.publishedAt} /> by <strong>{v.publishedBy}</strong> · {v.locales.join(', ')}</div>
                        {rowActions({ kind: 'version', row: v }, label, showSnapshots && <CreateSnapshot teamId={teamId} docId={docId} version={v.version} label={`Share ${label}`} onCreated={(r) => { changed(r); void load() }} />)}
                      </li>
                    )
                  })}
                </ul>
                {next?.hasMore && <button type="button" onClick={loadMore}>Load more versions</button>}
              </li>
            </ol>
          )}
          {view && view.mode !== 'restore' && (
            <Modal wide open onOpenChange={(o) => !o && setView(null)} title={view.mode === 'preview' ? `Preview: ${sourceLabel(view.source)}` : 'Compare'}>
              {view.mode === 'preview' ? <Preview teamId={teamId} docId={docId} source={view.source} /> : <CompareView teamId={teamId} docId={docId} rows={rows} initial={view.source} />}
            </Modal>
          )}
          {view?.mode === 'restore' && (
            <RestoreDialog teamId={teamId} docId={docId} team={team} source={view.source} open onOpenChange={(o) => !o && setView(null)} onRestored={() => { onRestored(); void load() }} />
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
