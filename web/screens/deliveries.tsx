/** Test send (status, duration, the receiver's body) and the delivery log with its attempts, a status filter and redeliver. */
import { useState } from 'react'
import { api, ok, type Schemas } from '../api/client'
import { ErrorNote, Modal, useLoad, When } from '../ui'

type Hook = Schemas['WebhookRecord']
type Status = Schemas['Delivery']['status']

export function TestSend({ teamId, hook }: { teamId: string; hook: Hook }) {
  const [open, setOpen] = useState(false)
  const [eventType, setEventType] = useState<Hook['events'][number]>(hook.events[0] ?? 'content.published')
  const [result, setResult] = useState<Schemas['WebhookTestResult'] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const send = async () => {
    setBusy(true)
    setError(null)
    setResult(null)
    try {
      setResult(await ok(api.POST('/teams/{teamId}/webhooks/{id}/test', { params: { path: { teamId, id: hook.id }, query: { eventType } } })))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} aria-label={`Test send ${hook.label}`}>Test send</button>
      <Modal open={open} onOpenChange={setOpen} title={`Test send: ${hook.label}`} description="Sends a sample event (document id webhook-test) to the target now and shows its answer.">
        <label htmlFor="test-event">Event type</label>
        <select id="test-event" value={eventType} onChange={(e) => setEventType(e.target.value as typeof eventType)}>
          {(['content.published', 'content.unpublished', 'site.changed'] as const).map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
        <div className="actions"><button type="button" className="primary" onClick={send} disabled={busy}>{busy ? 'Sending…' : 'Send test event'}</button></div>
        <ErrorNote error={error} />
        {result && (
          <div role="status" className="test-result">
            <p>{result.delivered ? 'Delivered' : 'Not delivered'}: status <strong>{result.status ?? 'none'}</strong> in <strong>{result.durationMs} ms</strong>{result.error ? `; ${result.error}` : ''}</p>
            <p>Response body:</p>
            <pre className="body">{result.responseBody || '(empty)'}</pre>
          </div>
        )}
      </Modal>
    </>
  )
}

export function Deliveries({ teamId, hook }: { teamId: string; hook: Hook }) {
  const [status, setStatus] = useState<Status | ''>('')
  const list = useLoad(() => ok(api.GET('/teams/{teamId}/webhooks/{id}/deliveries', { params: { path: { teamId, id: hook.id }, query: { status: status || undefined } } as never })) as Promise<Schemas['Delivery'][]>, [teamId, hook.id, status])
  const [error, setError] = useState<unknown>(null)
  const [queued, setQueued] = useState<string | null>(null)
  const redeliver = async (eventId: string) => {
    setError(null)
    try {
      await ok(api.POST('/teams/{teamId}/webhooks/{id}/deliveries/{eventId}/redeliver', { params: { path: { teamId, id: hook.id, eventId } } }))
      setQueued(eventId)
      setTimeout(list.reload, 1500)
    } catch (e) {
      setError(e)
    }
  }
  return (
    <div>
      <div className="toolbar">
        <label>Status <select value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
          <option value="">All</option><option value="pending">pending</option><option value="delivered">delivered</option><option value="failed">failed</option>
        </select></label>
        <button type="button" onClick={list.reload}>Refresh</button>
      </div>
      <ErrorNote error={list.error ?? error} />
      {queued && <p role="status">Event {queued} queued to be sent again.</p>}
      {list.data?.length === 0 && <p>No deliveries{status ? ` with status ${status}` : ''}.</p>}
      <ul className="deliveries" aria-label="Deliveries">
        {(list.data ?? []).map((d) => (
          <li key={d.eventId}>
            <p><strong>{d.eventType}</strong> · {d.status} · <When at={d.createdAt} /> · <code>{d.eventId}</code>{' '}
              <button type="button" onClick={() => redeliver(d.eventId)} aria-label={`Redeliver ${d.eventId}`}>Redeliver</button></p>
            <table className="attempts">
              <caption className="sr-only">Attempts of {d.eventId}</caption>
              <thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Result</th><th scope="col">Duration</th><th scope="col">Trigger</th></tr></thead>
              <tbody>
                {d.attempts.map((a) => (
                  <tr key={a.attempt}><td>{a.attempt}</td><td><When at={a.at} /></td><td>{a.error ? `error: ${a.error}` : `HTTP ${a.statusCode}`}</td><td>{a.durationMs} ms</td><td>{a.trigger}</td></tr>
                ))}
              </tbody>
            </table>
          </li>
        ))}
      </ul>
    </div>
  )
}
