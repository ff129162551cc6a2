/** Create or edit a webhook: a provider picker, each provider asking for what it needs; `site.changed` never preselected. */
import { useState } from 'react'
import { api, ok, type Schemas } from '../api/client'
import { ErrorNote } from '../ui'

type Provider = Schemas['WebhookCreate']['provider']
type Event = Schemas['WebhookRecord']['events'][number]
type Scheme = Schemas['WebhookRecord']['signatureScheme']
const SCHEMES: { value: Scheme; text: string }[] = [
  { value: 'service', text: "The service's own: X-Service-Signature (HMAC-SHA256 of the body)" },
  { value: 'standard-webhooks', text: 'Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature as well (verified by its libraries; refuses replays)' },
]
const EVENTS: { value: Event; text: string }[] = [
  { value: 'content.published', text: 'content.published: a document went live or changed in place' },
  { value: 'content.unpublished', text: 'content.unpublished: a live document was archived or deleted' },
  { value: 'site.changed', text: 'site.changed: a content type, the languages or the content index changed (refresh everything)' },
]
const PROVIDERS: { value: Provider; text: string; target: string }[] = [
  { value: 'custom', text: 'Custom endpoint (your own receiver)', target: 'Receiver URL (https://…)' },
  { value: 'netlify', text: 'Netlify build hook', target: 'Build hook URL (https://api.netlify.com/build_hooks/…)' },
  { value: 'vercel', text: 'Vercel deploy hook', target: 'Deploy hook URL (https://api.vercel.com/v1/integrations/deploy/…)' },
  { value: 'github', text: 'GitHub repository dispatch', target: 'Dispatch URL (https://api.github.com/repos/{owner}/{repo}/dispatches)' },
]

export function WebhookForm({ teamId, hook, onSaved }: { teamId: string; hook?: Schemas['WebhookRecord']; onSaved: (r: Schemas['WebhookWithSecret'] | Schemas['WebhookRecord']) => void }) {
  const [provider, setProvider] = useState<Provider>(hook?.provider ?? 'custom')
  const [label, setLabel] = useState(hook?.label ?? '')
  const [target, setTarget] = useState(hook?.target ?? '')
  const [events, setEvents] = useState<Event[]>(hook?.events ?? ['content.published', 'content.unpublished'])
  const [scheme, setScheme] = useState<Scheme>(hook?.signatureScheme ?? 'service')
  const [secret, setSecret] = useState('')
  const [ghToken, setGhToken] = useState('')
  const [ghEvent, setGhEvent] = useState(hook?.options.eventType ?? '')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const p = PROVIDERS.find((x) => x.value === provider)!
  const submit = async (e: React.FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    const options = provider === 'github' ? { ...(ghToken ? { token: ghToken } : {}), ...(ghEvent ? { eventType: ghEvent } : {}) } : undefined
    try {
      const r = hook
        ? await ok(api.PATCH('/teams/{teamId}/webhooks/{id}', { params: { path: { teamId, id: hook.id } }, body: { label, provider, target, events, signatureScheme: scheme, ...(secret ? { secret } : {}), ...(options ? { options } : {}) } }))
        : await ok(api.POST('/teams/{teamId}/webhooks', { params: { path: { teamId } }, body: { label, provider, target, events, signatureScheme: scheme, ...(secret ? { secret } : {}), ...(options ? { options } : {}) } }))
      onSaved(r as Schemas['WebhookWithSecret'])
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  return (
    <form onSubmit={submit} className="webhook-form">
      <label htmlFor="wh-label">Label</label>
      <input id="wh-label" value={label} onChange={(e) => setLabel(e.target.value)} required />
      <label htmlFor="wh-provider">Provider</label>
      <select id="wh-provider" value={provider} onChange={(e) => setProvider(e.target.value as Provider)}>
        {PROVIDERS.map((x) => <option key={x.value} value={x.value}>{x.text}</option>)}
      </select>
      <label htmlFor="wh-target">{p.target}</label>
      <input id="wh-target" type="url" value={target} onChange={(e) => setTarget(e.target.value)} required />
      {provider === 'github' && (
        <>
          <label htmlFor="wh-gh-token">GitHub token{hook?.options.tokenLast4 ? ` (stored one ends in ${hook.options.tokenLast4}; leave empty to keep it)` : ''}</label>
          <input id="wh-gh-token" type="password" autoComplete="off" value={ghToken} onChange={(e) => setGhToken(e.target.value)} required={!hook?.options.tokenLast4} />
          <label htmlFor="wh-gh-event">Dispatch event_type (optional)</label>
          <input id="wh-gh-event" value={ghEvent} onChange={(e) => setGhEvent(e.target.value)} />
        </>
      )}
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map((ev) => (
          <label key={ev.value}>
            <input type="checkbox" checked={events.includes(ev.value)} onChange={(e) => setEvents((s) => (e.target.checked ? [...s, ev.value] : s.filter((x) => x !== ev.value)))} /> {ev.text}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Signature</legend>
        {SCHEMES.map((x) => (
          <label key={x.value}><input type="radio" name="wh-scheme" value={x.value} checked={scheme === x.value} onChange={() => setScheme(x.value)} /> {x.text}</label>
        ))}
      </fieldset>
      <label htmlFor="wh-secret">{hook ? `New signing secret (optional; the current one ends in ${hook.secretLast4})` : 'Signing secret (optional: leave empty and one is generated)'}</label>
      <input id="wh-secret" type="password" autoComplete="new-password" aria-describedby="wh-secret-form" value={secret} onChange={(e) => setSecret(e.target.value)} />
      <p id="wh-secret-form" className="hint">{scheme === 'standard-webhooks'
        ? <>Standard Webhooks needs a secret of the form <code>whsec_</code> followed by the base64 of at least 24 random bytes, e.g. from <code>echo "whsec_$(openssl rand -base64 32)"</code>. Leave it empty to get one generated.{hook && hook.signatureScheme !== 'standard-webhooks' ? ' Switching to it without entering one gives this webhook a new whsec_ secret, shown once (unless its current secret already has that form).' : ''}</>
        : <>Any text of 32 to 500 characters without spaces.</>}</p>
      <ErrorNote error={error} />
      <div className="actions"><button type="submit" className="primary" disabled={busy}>{hook ? 'Save webhook' : 'Create webhook'}</button></div>
    </form>
  )
}
