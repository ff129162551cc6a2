/** The editor app: sign in, then a team's documents, the editor with its History drawer, webhooks, settings. */
import { StrictMode, useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { Link, Redirect, Route, Switch, useLocation } from 'wouter'
import { api, ok, token, type Me } from './api/client'
import { SessionContext, teamPath, useSession } from './session'
import { SignIn } from './screens/sign-in'
import { Documents } from './screens/documents'
import { Editor } from './screens/editor'
import { Webhooks } from './screens/webhooks'
import { SharePreview } from './screens/share'
import { Settings } from './screens/settings'
import { ErrorNote } from './ui'

function App() {
  const [me, setMe] = useState<Me | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [checking, setChecking] = useState(() => token.get() !== null)
  const [, navigate] = useLocation()
  useEffect(() => {
    if (!checking) return
    ok(api.GET('/me')).then(setMe, (e) => { setError(e); token.clear() }).finally(() => setChecking(false))
  }, [checking])
  const signOut = () => { token.clear(); setMe(null); navigate('/') }
  if (checking) return <p className="loading" role="status">Signing in…</p>
  if (!me) return <SignIn error={error} onSignedIn={(m) => { setError(null); setMe(m) }} />
  return (
    <SessionContext.Provider value={{ me, signOut }}>
      <Shell />
    </SessionContext.Provider>
  )
}

function Shell() {
  const { me } = useSession()
  const first = me.teams[0]
  return (
    <Switch>
      <Route path="/">{first ? <Redirect to={teamPath(first.id)} replace /> : <Layout><NoTeams /></Layout>}</Route>
      <Route path="/app">{first ? <Redirect to={teamPath(first.id)} replace /> : <Layout><NoTeams /></Layout>}</Route>
      <Route path="/app/t/:team">{(p) => <Layout team={p.team}><Documents teamId={p.team} /></Layout>}</Route>
      <Route path="/app/t/:team/edit">{(p) => <Layout team={p.team}><Editor teamId={p.team} /></Layout>}</Route>
      <Route path="/app/t/:team/webhooks">{(p) => <Layout team={p.team}><Webhooks teamId={p.team} /></Layout>}</Route>
      <Route path="/app/t/:team/share">{(p) => <Layout team={p.team}><SharePreview teamId={p.team} /></Layout>}</Route>
      <Route path="/app/t/:team/settings">{(p) => <Layout team={p.team}><Settings teamId={p.team} /></Layout>}</Route>
      <Route>{() => <Layout><h1>Not found</h1><p>The editor app has no page at this address.</p><Link href="/">Go to your documents</Link></Layout>}</Route>
    </Switch>
  )
}

function NoTeams() {
  return <p>You are signed in, but you are a member of no team yet: ask a team manager to add you.</p>
}

/** The header on every signed-in page: who you are, your team (and what you may do there), the screens. */
function Layout({ team, children }: { team?: string; children: React.ReactNode }) {
  const { me, signOut } = useSession()
  const [, navigate] = useLocation()
  const current = me.teams.find((t) => t.id === team)
  return (
    <>
      <header className="top">
        <Link href={team ? teamPath(team) : '/'} className="brand">Content editor</Link>
        <nav aria-label="Main">
          {team && <Link href={teamPath(team)}>Documents</Link>}
          {team && current?.capabilities.includes('ManageWebhooks') && <Link href={teamPath(team, '/webhooks')}>Webhooks</Link>}
          {team && <Link href={teamPath(team, '/settings')}>Team</Link>}
        </nav>
        <div className="who">
          {me.teams.length > 1 && (
            <label>
              Team{' '}
              <select value={team ?? ''} onChange={(e) => navigate(teamPath(e.target.value))}>
                {me.teams.map((t) => <option key={t.id} value={t.id}>{t.id}</option>)}
              </select>
            </label>
          )}
          <span>Signed in as <strong>{me.userId}</strong>{current && <> in <strong>{current.id}</strong></>}</span>
          <button type="button" onClick={signOut}>Sign out</button>
        </div>
      </header>
      {team && !current ? (
        <main><ErrorNote error={new Error(`You are not a member of team "${team}" (forbidden).`)} /></main>
      ) : (
        <main>{children}</main>
      )}
    </>
  )
}

createRoot(document.getElementById('root')!).render(<StrictMode><App /></StrictMode>)
