/**
 * The editor: non-localizable fields once, one tab per locale (a dot marks a locale in the
 * draft's `__dirtyLocales`), save with If-Match. A conflicting save keeps every typed value on
 * screen and offers to reload the server's draft under them.
 */
import * as Tabs from '@radix-ui/react-tabs'
import { useEffect, useState } from 'react'
import { useSearch } from 'wouter'
import { api, ok, ApiProblem, draftOf, type Schemas } from '../api/client'
import { etagOf, readOrNull, type Loaded } from '../doc-data'
import { can, useTeam } from '../session'
import { ErrorNote, useLoad, When } from '../ui'
import { StatusBadge } from './documents'
import { EditorActions } from './editor-actions'
import { HistoryDrawer } from './history'
import { FieldInput } from './field-input'

interface Working { fields: Record<string, unknown>; locales: Record<string, Record<string, unknown>> }
/** Typed values not yet saved, by `fields/<name>` or `locales/<code>/<name>`. */
type Edits = Record<string, unknown>

function applyEdits(base: Working, edits: Edits): Working {
  const w: Working = { fields: { ...base.fields }, locales: Object.fromEntries(Object.entries(base.locales).map(([k, v]) => [k, { ...v }])) }
  for (const [key, value] of Object.entries(edits)) {
    const [area, a, b] = key.split('/')
    if (area === 'fields') w.fields[a!] = value
    else (w.locales[a!] ??= {})[b!] = value
  }
  return w
}

export function Editor({ teamId }: { teamId: string }) {
  const id = new URLSearchParams(useSearch()).get('id') ?? ''
  const team = useTeam(teamId)!
  const docs = useLoad(async () => ({ draft: await readOrNull(teamId, draftOf(id)), live: await readOrNull(teamId, id) }), [teamId, id])
  const base: Loaded | null = docs.data ? (docs.data.draft ?? docs.data.live) : null
  const type = useLoad(async () => (base ? ok(api.GET('/teams/{teamId}/content-types/{name}', { params: { path: { teamId, name: base.contentType } } })) : null), [teamId, base?.contentType])
  const [edits, setEdits] = useState<Edits>({})
  const [saveError, setSaveError] = useState<unknown>(null)
  const [saved, setSaved] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => { setEdits({}); setSaveError(null) }, [teamId, id])
  const hasEdits = Object.keys(edits).length > 0
  // Closing or reloading the tab with typed, unsaved text asks first.
  useEffect(() => {
    if (!hasEdits) return
    const warn = (e: BeforeUnloadEvent) => e.preventDefault()
    window.addEventListener('beforeunload', warn)
    return () => window.removeEventListener('beforeunload', warn)
  }, [hasEdits])

  if (docs.error) return <ErrorNote error={docs.error} />
  if (docs.loading && !docs.data) return <p role="status">Loading {id}…</p>
  if (!base) return <ErrorNote error={new ApiProblem(404, 'not_found', `Document ${id} not found.`, null)} />
  const { draft, live } = docs.data!
  const working = applyEdits({ fields: (base.fields ?? {}) as Working['fields'], locales: (base.locales ?? {}) as Working['locales'] }, edits)
  const def = type.data as Schemas['ContentTypeDefinition'] | null | undefined
  const fields = def?.fields ?? []
  const plain = fields.filter((f) => !f.localizable)
  const localizable = fields.filter((f) => f.localizable)
  const dirty = new Set(draft?.__dirtyLocales ?? [])
  const unsaved = new Set(Object.keys(edits).filter((k) => k.startsWith('locales/')).map((k) => k.split('/')[1]))
  const published = live?.['@metadata']?.published === true
  const mayWrite = can(team, 'EditContent')

  const save = async () => {
    setBusy(true)
    setSaveError(null)
    setSaved(null)
    try {
      const ifMatch = etagOf(draft)
      const body = { id: draftOf(id), contentType: base.contentType, fields: working.fields, locales: working.locales }
      // A draft read earlier is written only if nobody saved it since (409 conflict otherwise).
      await ok(api.POST('/content/{activeTeam}', { params: { path: { activeTeam: teamId } }, body, headers: ifMatch ? { 'if-match': ifMatch } : {} }))
      setEdits({})
      setSaved(new Date().toISOString())
      docs.reload()
    } catch (e) {
      setSaveError(e)
    } finally {
      setBusy(false)
    }
  }
  const conflict = saveError instanceof ApiProblem && saveError.status === 409
  const set = (key: string) => (value: unknown) => setEdits((e) => ({ ...e, [key]: value }))

  return (
    <article aria-labelledby="doc-title" className="editor">
      <div className="toolbar">
        <h1 id="doc-title">{id}</h1>
        <StatusBadge row={{ archived: live?.['@metadata']?.archived === true, published, draft: draft !== null, dirtyLocales: draft?.__dirtyLocales ?? [] }} />
        {team.features.history && <HistoryDrawer teamId={teamId} docId={id} published={published} onRestored={docs.reload} hasEdits={hasEdits} />}
      </div>
      <p className="meta">
        Type <strong>{base.contentType}</strong>
        {live?.__publishedAt && <> · published <When at={live.__publishedAt} /> by {live.__publishedBy}</>}
        {draft && <> · draft saved <When at={(draft['@metadata'] as Record<string, string> | undefined)?.['@last-modified']} /></>}
      </p>
      <form onSubmit={(e) => { e.preventDefault(); void save() }} aria-label="Document fields">
        {plain.length > 0 && (
          <fieldset>
            <legend>Fields for every language</legend>
            {plain.map((f) => <FieldInput key={f.name} id={`f-${f.name}`} label={f.name} value={working.fields[f.name]} onChange={set(`fields/${f.name}`)} readOnly={!mayWrite} />)}
          </fieldset>
        )}
        {localizable.length > 0 && (
          <Tabs.Root defaultValue={team.defaultLocale} className="tabs">
            <Tabs.List aria-label="Languages">
              {team.locales.map((l) => (
                <Tabs.Trigger key={l} value={l}>
                  {l}
                  {dirty.has(l) && <span className="dot" aria-label="unpublished changes" title="Unpublished changes in the draft">●</span>}
                  {unsaved.has(l) && <span className="unsaved" aria-label="not saved" title="Typed, not saved yet">*</span>}
                </Tabs.Trigger>
              ))}
            </Tabs.List>
            {team.locales.map((l) => (
              <Tabs.Content key={l} value={l}>
                {!working.locales[l] && <p className="hint">This document has no {l} text yet.</p>}
                {localizable.map((f) => (
                  <FieldInput key={f.name} id={`l-${l}-${f.name}`} label={`${f.name} (${l})`} value={working.locales[l]?.[f.name]} onChange={set(`locales/${l}/${f.name}`)} readOnly={!mayWrite} />
                ))}
              </Tabs.Content>
            ))}
          </Tabs.Root>
        )}
        {localizable.length > 0 && <p className="hint">● the draft has unpublished changes in this language · * typed here, not saved yet</p>}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy || !mayWrite || !hasEdits}>Save draft</button>
          {hasEdits && <span className="hint">Unsaved changes</span>}
          {saved && !hasEdits && <span role="status">Draft saved.</span>}
        </div>
        <ErrorNote error={saveError}>
          {conflict && (
            <p>
              Someone else saved this draft since you opened it. Your typed text is still here.{' '}
              <button type="button" onClick={() => { setSaveError(null); docs.reload() }}>Reload the saved draft under my changes</button>
            </p>
          )}
        </ErrorNote>
      </form>
      <EditorActions teamId={teamId} docId={id} team={team} live={live} draft={draft} hasEdits={hasEdits} onDone={docs.reload} />
    </article>
  )
}
