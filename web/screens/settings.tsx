/** The team page: who you are there, and the History drawer's two flags (set with ManageTeam). */
import { useState } from 'react'
import { api, ok } from '../api/client'
import { can, useSession, useTeam } from '../session'
import { ErrorNote } from '../ui'

export function Settings({ teamId }: { teamId: string }) {
  const { me } = useSession()
  const team = useTeam(teamId)!
  const [flags, setFlags] = useState(team.features)
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)
  const manage = can(team, 'ManageTeam')
  const save = async (next: typeof flags) => {
    setError(null)
    setSaved(false)
    try {
      const r = await ok(api.PUT('/teams/{teamId}/features', { params: { path: { teamId } }, body: next }))
      setFlags(r)
      team.features = r // the drawer reads the session's copy
      setSaved(true)
    } catch (e) {
      setError(e)
    }
  }
  return (
    <section aria-labelledby="team-title">
      <h1 id="team-title">Team {teamId}</h1>
      <p>Signed in as <strong>{me.userId}</strong>. Your capabilities here: {team.capabilities.join(', ') || 'none'}.</p>
      <p>Languages: {team.locales.join(', ')} (default {team.defaultLocale}).</p>
      <fieldset>
        <legend>History drawer</legend>
        <label><input type="checkbox" checked={flags.history} disabled={!manage} onChange={(e) => void save({ ...flags, history: e.target.checked })} /> Show the History drawer (versions)</label>
        <label><input type="checkbox" checked={flags.snapshots} disabled={!manage || !flags.history} onChange={(e) => void save({ ...flags, snapshots: e.target.checked })} /> Show snapshots and "Share" (needs the History drawer)</label>
        {!manage && <p className="hint">Only a member with ManageTeam changes these.</p>}
        <p className="hint">These flags change only what this app shows; the API answers the same either way.</p>
      </fieldset>
      {saved && <p role="status">Saved.</p>}
      <ErrorNote error={error} />
    </section>
  )
}
