/**
 * The restore dialog: all locales or a chosen few; shows which locales the source carries and
 * which the draft has dirty, and the comparison of the source against the draft for exactly
 * what will be taken. Restoring writes the draft only: it never publishes. The restore carries
 * the ETag of the draft the dialog showed (If-Match), so a draft saved meanwhile is a 409
 * rather than a restore over edits the person never saw.
 */
import { useState } from 'react'
import { api, ok, ApiProblem, draftOf, type MyTeam } from '../api/client'
import { etagOf, loadSource, readOrNull, sourceKey, sourceLabel, type Source } from '../doc-data'
import { ErrorNote, Modal, useLoad } from '../ui'
import { CompareTable } from './compare'

type Restorable = Extract<Source, { kind: 'version' | 'snapshot' }>

/** Why the caller may not restore into this document's draft, or null. */
export function restoreBlocked(team: MyTeam, published: boolean, source: Source): string | null {
  if (source.kind === 'snapshot' && source.snap.status !== 'active') return `This snapshot is ${source.snap.status}: it cannot be restored.`
  if (published && !team.capabilities.includes('ChangeLiveContent')) return 'Restoring into the draft of a published document needs the ChangeLiveContent capability (you can still read and preview every row).'
  return null
}

export function RestoreDialog({ teamId, docId, team, source, open, onOpenChange, onRestored }: { teamId: string; docId: string; team: MyTeam; source: Restorable; open: boolean; onOpenChange: (o: boolean) => void; onRestored: () => void }) {
  const [all, setAll] = useState(true)
  const [chosen, setChosen] = useState<string[]>([])
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [done, setDone] = useState(false)
  const data = useLoad(async () => {
    if (!open) return null
    const [body, draft] = await Promise.all([loadSource(teamId, docId, source), readOrNull(teamId, draftOf(docId))])
    return { body, draft: draft ?? (await readOrNull(teamId, docId)), dirty: draft?.__dirtyLocales ?? [], etag: etagOf(draft) }
  }, [open, teamId, docId, sourceKey(source)])
  const carried = Object.keys(data.data?.body?.locales ?? {})
  const taken = all ? carried : chosen
  /** What to know about a language before ticking it, in one parenthesis. */
  const notes = (l: string) => {
    const inDraft = Object.hasOwn(data.data?.draft?.locales ?? {}, l)
    const n = [carried.includes(l) ? '' : inDraft ? 'not in source: restoring it removes it from the draft' : 'not in source', data.data?.dirty.includes(l) ? 'unpublished changes in draft' : ''].filter(Boolean)
    return n.length ? ` (${n.join('; ')})` : ''
  }
  const locales = all ? null : chosen

  /** Restores over the draft whose ETag is `etag` (none: there was no draft when it was read). */
  const restore = async (etag = data.data?.etag) => {
    setBusy(true)
    setError(null)
    const headers = etag ? { 'if-match': etag } : {}
    try {
      if (source.kind === 'version') {
        await ok(api.POST('/content/apply-version/{activeTeam}', { params: { path: { activeTeam: teamId } }, body: { kind: 'revision', documentId: docId, version: source.row.version, locales }, headers }))
      } else {
        await ok(api.POST('/content/apply-snapshot/{activeTeam}', { params: { path: { activeTeam: teamId } }, body: { snapshotId: source.snap.id, documentId: docId, locales }, headers }))
      }
      setDone(true)
      onRestored()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  // Re-reads the draft (the comparison shows it as it is now) and restores over it with the same locale choice.
  const retry = async () => {
    setBusy(true)
    try {
      const fresh = await readOrNull(teamId, draftOf(docId))
      data.reload()
      await restore(etagOf(fresh))
    } catch (e) {
      setError(e)
      setBusy(false)
    }
  }
  // A revoked or expired snapshot is a 409 too, but re-reading cannot help it.
  const conflict = error instanceof ApiProblem && error.status === 409 && !/revoked|expired/i.test(error.message)
  return (
    <Modal wide open={open} onOpenChange={(o) => { if (!o) { setDone(false); setError(null) } onOpenChange(o) }} title={`Restore ${sourceLabel(source)}`}
      description="Restoring copies this row into the draft. It never publishes: the live site stays as it is until someone publishes the draft.">
      <ErrorNote error={data.error} />
      {data.data && (
        <>
          <p>This source carries: <strong>{carried.join(', ') || 'no language'}</strong>. Unpublished changes in the draft: <strong>{data.data.dirty.join(', ') || 'none'}</strong>.</p>
          <fieldset>
            <legend>Languages to restore</legend>
            <label><input type="radio" name="restore-scope" checked={all} onChange={() => setAll(true)} /> All locales (the whole draft is replaced from this source)</label>
            <label><input type="radio" name="restore-scope" checked={!all} onChange={() => setAll(false)} /> Pick locales</label>
            <div className="checks">
              {team.locales.map((l) => (
                <label key={l}>
                  <input type="checkbox" disabled={all} checked={chosen.includes(l)} onChange={(e) => setChosen((c) => (e.target.checked ? [...c, l] : c.filter((x) => x !== l)))} />{' '}
                  {l}{notes(l)}
                </label>
              ))}
            </div>
          </fieldset>
          {!all && <p className="hint">Every other language of the draft stays exactly as it is now. The fields for every language always come from the source.</p>}
          <h3>What changes in the draft</h3>
          <CompareTable left={data.data.draft} right={data.data.body} leftLabel="Draft now" rightLabel="After restore" locales={taken} fields changedOnly />
        </>
      )}
      <ErrorNote error={error}>
        {conflict && (
          <p>
            <button type="button" disabled={busy} onClick={() => void retry()}>Re-read and retry with the same locales</button>
          </p>
        )}
      </ErrorNote>
      {done && <p role="status">Restored into the draft. Nothing was published.</p>}
      <div className="actions">
        <button type="button" className="primary" onClick={() => void restore()} disabled={busy || done || (!all && chosen.length === 0) || !data.data}>Restore into draft</button>
        <button type="button" onClick={() => onOpenChange(false)}>{done ? 'Close' : 'Cancel'}</button>
      </div>
    </Modal>
  )
}
