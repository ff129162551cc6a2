/** Sign in by pasting a bearer token; under `bun start`'s demo data, the demo tokens are named. */
import { useEffect, useState } from 'react'
import { api, ok, token, type Me } from '../api/client'
import { ErrorNote } from '../ui'

interface DemoToken { userId: string; token: string; teamId: string; capabilities: string[] }

export function SignIn({ error, onSignedIn }: { error: unknown; onSignedIn: (me: Me) => void }) {
  const [value, setValue] = useState('')
  const [problem, setProblem] = useState<unknown>(error)
  const [busy, setBusy] = useState(false)
  const [demo, setDemo] = useState<DemoToken[]>([])
  useEffect(() => {
    // Public and holding only the README's demo tokens, when they work on this database.
    fetch('/app/demo-tokens').then((r) => (r.ok ? r.json() : [])).then(setDemo, () => setDemo([]))
  }, [])
  const submit = async (e: React.FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setProblem(null)
    token.set(value.trim())
    try {
      onSignedIn(await ok(api.GET('/me')))
    } catch (err) {
      token.clear()
      setProblem(err)
    } finally {
      setBusy(false)
    }
  }
  return (
    <main className="sign-in">
      <h1>Content editor</h1>
      <form onSubmit={submit}>
        <label htmlFor="token">Bearer token</label>
        <input id="token" type="password" autoComplete="off" spellCheck={false} value={value} onChange={(e) => setValue(e.target.value)} required />
        <p className="hint">Kept in this tab only (session storage) and sent only in the Authorization header.</p>
        <button type="submit" className="primary" disabled={busy || !value.trim()}>Sign in</button>
      </form>
      <ErrorNote error={problem} />
      {demo.length > 0 && (
        <section aria-labelledby="demo-title" className="demo">
          <h2 id="demo-title">Demo tokens</h2>
          <p>This database holds the demo team of <code>bun start</code>; its public tokens sign in here:</p>
          <ul>
            {demo.map((d) => (
              <li key={d.userId}>
                <code>{d.token}</code>: {d.userId} in {d.teamId} ({d.capabilities.join(', ')}){' '}
                <button type="button" onClick={() => setValue(d.token)} aria-label={`Use the token of ${d.userId}`}>Use</button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  )
}
