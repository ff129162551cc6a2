/**
 * What the editor does to the live site: publish (all locales or a subset), schedule, and the
 * lifecycle operations, each behind a confirmation that says what happens to the live site.
 */
import { useState } from 'react'
import { useLocation } from 'wouter'
import { api, ok, type MyTeam } from '../api/client'
import type { Loaded } from '../doc-data'
import { can, editPath, teamPath } from '../session'
import { ConfirmButton, ErrorNote, Modal, When } from '../ui'

type Op = '/content/unpublish/{activeTeam}' | '/content/archive/{activeTeam}' | '/content/delete/{activeTeam}' | '/content/copy/{activeTeam}' | '/content/discard-draft/{activeTeam}' | '/content/unschedule/{activeTeam}'

export function EditorActions({ teamId, docId, team, live, draft, hasEdits, onDone }: { teamId: string; docId: string; team: MyTeam; live: Loaded | null; draft: Loaded | null; hasEdits: boolean; onDone: () => void }) {
  const [, navigate] = useLocation()
  const mayLive = can(team, 'ChangeLiveContent')
  const published = live?.['@metadata']?.published === true
  const archived = live?.['@metadata']?.archived === true
  const run = (op: Op) => async () => {
    const items = await ok(api.POST(op, { params: { path: { activeTeam: teamId } }, body: { ids: [docId] } }))
    return items
  }
  const why = mayLive ? undefined : 'You need the ChangeLiveContent capability to change the live site.'
  const unsavedNote = hasEdits ? ' Your unsaved changes are not included: save the draft first.' : ''
  return (
    <section aria-labelledby="actions-title" className="doc-actions">
      <h2 id="actions-title">Publishing</h2>
      {why && <p className="hint">{why}</p>}
      <div className="actions wrap">
        <PublishButton teamId={teamId} docId={docId} locales={team.locales} draftLocales={Object.keys(draft?.locales ?? live?.locales ?? {})} dirty={draft?.__dirtyLocales ?? []} disabled={!mayLive} onDone={onDone} note={unsavedNote} />
        <ScheduleButton teamId={teamId} docId={docId} disabled={!mayLive} onDone={onDone} />
        <ConfirmButton label="Unpublish" title={`Unpublish ${docId}?`} disabled={!mayLive || !published}
          consequence={`The page is taken off the live site at once; its text stays here as a draft you can publish again.`} action={async () => { await run('/content/unpublish/{activeTeam}')(); onDone() }} />
        <ConfirmButton label="Archive" title={`Archive ${docId}?`} disabled={!mayLive || archived}
          consequence={published ? 'The page is taken off the live site (webhooks send content.unpublished) and the document is archived.' : 'The document is archived; nothing is live, so the site does not change.'} action={async () => { await run('/content/archive/{activeTeam}')(); onDone() }} />
        <ConfirmButton label="Copy" title={`Copy ${docId}?`} consequence="A new, unpublished document is made from this one's draft (or live text). The live site does not change." confirmLabel="Make a copy"
          action={async () => { const [item] = await run('/content/copy/{activeTeam}')(); const copyId = (item as { document?: { id?: string } })?.document?.id; if (copyId) navigate(editPath(teamId, copyId.replace(/\/draft$/, ''))) }} disabled={!can(team, 'EditContent')} />
        <ConfirmButton label="Discard draft" title={`Discard the draft of ${docId}?`} disabled={!draft}
          consequence={published ? 'The draft and its unpublished changes are thrown away; the live page stays exactly as it is.' : 'The draft is thrown away; this document was never published, so nothing of it remains.'} action={async () => { await run('/content/discard-draft/{activeTeam}')(); onDone() }} danger />
        <ConfirmButton label="Delete" title={`Delete ${docId}?`} disabled={!mayLive}
          consequence={published ? 'The page is taken off the live site at once (webhooks send content.unpublished) and the document is deleted. Its Published Versions are kept.' : 'The document is deleted; it is not live, so the site does not change.'}
          action={async () => { await run('/content/delete/{activeTeam}')(); navigate(teamPath(teamId)) }} danger />
      </div>
    </section>
  )
}

function PublishButton({ teamId, docId, locales, draftLocales, dirty, disabled, onDone, note }: { teamId: string; docId: string; locales: string[]; draftLocales: string[]; dirty: string[]; disabled: boolean; onDone: () => void; note: string }) {
  const [open, setOpen] = useState(false)
  const [all, setAll] = useState(true)
  const [chosen, setChosen] = useState<string[]>([])
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const publish = async () => {
    setBusy(true)
    setError(null)
    try {
      await ok(api.POST('/content/publish/{activeTeam}', { params: { path: { activeTeam: teamId } }, body: all ? { ids: [docId] } : { ids: [docId], locales: chosen } }))
      setOpen(false)
      onDone()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" className="primary" disabled={disabled} onClick={() => { setChosen(dirty); setOpen(true) }}>Publish…</button>
      <Modal open={open} onOpenChange={setOpen} title={`Publish ${docId}`} description={`The chosen languages of the draft go live on the site now, and a Published Version is kept.${note}`}>
        <fieldset>
          <legend>Languages to publish</legend>
          <label><input type="radio" name="pub-scope" checked={all} onChange={() => setAll(true)} /> All languages of the draft ({draftLocales.join(', ') || 'none'})</label>
          <label><input type="radio" name="pub-scope" checked={!all} onChange={() => setAll(false)} /> Only these languages:</label>
          <div className="checks">
            {locales.map((l) => (
              <label key={l}><input type="checkbox" disabled={all} checked={chosen.includes(l)} onChange={(e) => setChosen((c) => (e.target.checked ? [...c, l] : c.filter((x) => x !== l)))} /> {l}{dirty.includes(l) ? ' (changed)' : ''}</label>
            ))}
          </div>
        </fieldset>
        <ErrorNote error={error} />
        <div className="actions">
          <button type="button" className="primary" onClick={publish} disabled={busy || (!all && chosen.length === 0)}>Publish now</button>
          <button type="button" onClick={() => setOpen(false)}>Cancel</button>
        </div>
      </Modal>
    </>
  )
}

function ScheduleButton({ teamId, docId, disabled, onDone }: { teamId: string; docId: string; disabled: boolean; onDone: () => void }) {
  const [open, setOpen] = useState(false)
  const [at, setAt] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [done, setDone] = useState<string | null>(null)
  const schedule = async () => {
    setError(null)
    try {
      const result = await ok(api.POST('/content/schedule/{activeTeam}', { params: { path: { activeTeam: teamId } }, body: { id: docId, publishAt: new Date(at).toISOString() } }))
      setDone(result.publishAt)
      onDone()
    } catch (e) {
      setError(e)
    }
  }
  return (
    <>
      <button type="button" disabled={disabled} onClick={() => { setDone(null); setOpen(true) }}>Schedule…</button>
      <Modal open={open} onOpenChange={setOpen} title={`Schedule ${docId}`} description="The draft as it is now goes live on the site at the chosen time, in every language it carries.">
        <label htmlFor="publish-at">Publish at (your local time)</label>
        <input id="publish-at" type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} />
        <ErrorNote error={error} />
        {done && <p role="status">Scheduled for <When at={done} />.</p>}
        <div className="actions">
          <button type="button" className="primary" disabled={!at} onClick={schedule}>Schedule publish</button>
          <button type="button" onClick={() => setOpen(false)}>Close</button>
        </div>
      </Modal>
    </>
  )
}
