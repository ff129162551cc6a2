/**
 * Webhook settings (ManageWebhooks): the list with each secret's last four, create and edit
 * (a secret is shown once, right after saving), delete, test send, and the delivery log.
 */
import { useState } from 'react'
import { api, ok, type Schemas } from '../api/client'
import { can, useTeam } from '../session'
import { ConfirmButton, ErrorNote, Modal, useLoad } from '../ui'
import { Deliveries, TestSend } from './deliveries'
import { Recover } from './recover'
import { WebhookForm } from './webhook-form'

type Hook = Schemas['WebhookRecord']

export function Webhooks({ teamId }: { teamId: string }) {
  const team = useTeam(teamId)
  const list = useLoad(() => ok(api.GET('/teams/{teamId}/webhooks', { params: { path: { teamId } } })), [teamId])
  const [secret, setSecret] = useState<Schemas['WebhookWithSecret'] | null>(null)
  const [creating, setCreating] = useState(false)
  const [editing, setEditing] = useState<Hook | null>(null)
  const [log, setLog] = useState<Hook | null>(null)
  if (!can(team, 'ManageWebhooks')) return <ErrorNote error={new Error('Webhook settings need the ManageWebhooks capability (forbidden).')} />
  const saved = (r: Schemas['WebhookWithSecret'] | Hook) => {
    setCreating(false)
    setEditing(null)
    if ('secret' in r && r.secret) setSecret(r as Schemas['WebhookWithSecret'])
    list.reload()
  }
  return (
    <section aria-labelledby="hooks-title">
      <div className="toolbar">
        <h1 id="hooks-title">Webhooks</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>New webhook</button>
      </div>
      {secret && <SecretOnce hook={secret} onDone={() => setSecret(null)} />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p>No webhooks yet. A webhook sends a signed request to your site when published content changes.</p>}
      <ul className="cards" aria-label="Webhooks">
        {(list.data ?? []).map((h) => (
          <li key={h.id} className="card">
            <h2>{h.label}</h2>
            <dl>
              <dt>Provider</dt><dd>{h.provider}</dd>
              <dt>Target</dt><dd className="break">{h.target}</dd>
              <dt>Events</dt><dd>{h.events.join(', ') || 'none'}</dd>
              <dt>Signature</dt><dd>{h.signatureScheme === 'standard-webhooks' ? 'Standard Webhooks headers, and X-Service-Signature' : 'X-Service-Signature (the service\'s own)'}</dd>
              <dt>Secret</dt><dd>ends in <code>{h.secretLast4}</code></dd>
            </dl>
            <div className="actions wrap">
              <button type="button" onClick={() => setEditing(h)} aria-label={`Edit ${h.label}`}>Edit</button>
              <TestSend teamId={teamId} hook={h} />
              <button type="button" onClick={() => setLog(h)} aria-label={`Delivery log of ${h.label}`}>Delivery log</button>
              <Recover teamId={teamId} hook={h} />
              <ConfirmButton label="Delete" title={`Delete webhook "${h.label}"?`} danger
                consequence="No more events go to this target; its delivery log is removed. Your content and the live site do not change."
                action={async () => { await ok(api.DELETE('/teams/{teamId}/webhooks/{id}', { params: { path: { teamId, id: h.id } } })); list.reload() }} />
            </div>
          </li>
        ))}
      </ul>
      <Modal wide open={creating} onOpenChange={setCreating} title="New webhook">
        <WebhookForm teamId={teamId} onSaved={saved} />
      </Modal>
      <Modal wide open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} title={`Edit webhook "${editing?.label ?? ''}"`}>
        {editing && <WebhookForm teamId={teamId} hook={editing} onSaved={saved} />}
      </Modal>
      <Modal wide open={log !== null} onOpenChange={(o) => !o && setLog(null)} title={`Delivery log: ${log?.label ?? ''}`}>
        {log && <Deliveries teamId={teamId} hook={log} />}
      </Modal>
    </section>
  )
}

/** The full secret, this once: with a copy button and the warning that it will not be shown again. */
function SecretOnce({ hook, onDone }: { hook: Schemas['WebhookWithSecret']; onDone: () => void }) {
  const [copied, setCopied] = useState(false)
  return (
    <div className="secret-once" role="region" aria-label="New signing secret">
      <p><strong>Signing secret of "{hook.label}".</strong> Copy it now: it will not be shown again (afterwards only its last four, <code>{hook.secretLast4}</code>).</p>
      <label htmlFor="secret-value">Signing secret</label>
      <input id="secret-value" readOnly value={hook.secret} onFocus={(e) => e.target.select()} />
      <div className="actions">
        <button type="button" onClick={() => navigator.clipboard?.writeText(hook.secret).then(() => setCopied(true))}>Copy secret</button>
        <button type="button" onClick={onDone}>I have stored it</button>
        {copied && <span role="status">Copied.</span>}
      </div>
    </div>
  )
}
