/**
 * "Recover failed deliveries" of one webhook (issue 35): every event of a window whose delivery
 * ended failed goes back in line. The times are the reader's local ones, sent with their offset.
 */
import { useState } from 'react'
import { api, ok, type Schemas } from '../api/client'
import { ErrorNote, Modal } from '../ui'

type Hook = Schemas['WebhookRecord']

/** A `datetime-local` value (the reader's wall clock) as RFC 3339 in UTC; empty stays undefined. */
const toInstant = (local: string) => (local ? new Date(local).toISOString() : undefined)
/** `Date` as a `datetime-local` value in the reader's zone, to the minute. */
const toLocal = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)

export function Recover({ teamId, hook }: { teamId: string; hook: Hook }) {
  const [open, setOpen] = useState(false)
  const [since, setSince] = useState('')
  const [until, setUntil] = useState('')
  const [queued, setQueued] = useState<number | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const start = () => {
    setSince(toLocal(new Date(Date.now() - 3600_000)))
    setUntil('')
    setQueued(null)
    setError(null)
    setOpen(true)
  }
  const submit = async (e: React.FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setQueued(null)
    try {
      const body = { since: toInstant(since)!, ...(until ? { until: toInstant(until) } : {}) }
      const r = await ok(api.POST('/teams/{teamId}/webhooks/{id}/recover', { params: { path: { teamId, id: hook.id } }, body }))
      setQueued((r as { queued: number }).queued)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" onClick={start} aria-label={`Recover failed deliveries of ${hook.label}`}>Recover failed…</button>
      <Modal open={open} onOpenChange={setOpen} title={`Recover failed deliveries: ${hook.label}`}
        description="Was the receiver down? Every event of this webhook that happened in the window and whose delivery ended failed is sent again (same event id and body). Delivered events are never sent twice.">
        <form onSubmit={submit} className="recover-form">
          <label htmlFor="recover-since">From (your local time; take a minute of margin before the outage)</label>
          <input id="recover-since" type="datetime-local" required value={since} onChange={(e) => setSince(e.target.value)} />
          <label htmlFor="recover-until">Up to (optional: empty means now)</label>
          <input id="recover-until" type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
          <div className="actions"><button type="submit" className="primary" disabled={busy || !since}>{busy ? 'Recovering…' : 'Recover failed deliveries'}</button></div>
        </form>
        <ErrorNote error={error} />
        {queued !== null && (
          <p role="status" className="ok-note">
            {queued === 0 ? 'Nothing to recover: no delivery of this webhook failed in that window (queued 0).' : `Queued ${queued} failed ${queued === 1 ? 'event' : 'events'} to be sent again. Follow them in the delivery log.`}
          </p>
        )}
      </Modal>
    </>
  )
}
