/** Who is signed in (`GET /me`) and the team in the address, for every screen. */
import { createContext, useContext } from 'react'
import type { Me, MyTeam } from './api/client'

export interface Session {
  me: Me
  signOut: () => void
}

export const SessionContext = createContext<Session | null>(null)

export function useSession(): Session {
  const s = useContext(SessionContext)
  if (!s) throw new Error('useSession outside a signed-in screen')
  return s
}

/** The signed-in user's membership of `teamId`, if any. */
export function useTeam(teamId: string): MyTeam | undefined {
  return useSession().me.teams.find((t) => t.id === teamId)
}

export const can = (team: MyTeam | undefined, capability: string) => team?.capabilities.includes(capability) ?? false

export const teamPath = (teamId: string, rest = '') => `/app/t/${encodeURIComponent(teamId)}${rest}`
export const editPath = (teamId: string, id: string) => teamPath(teamId, `/edit?id=${encodeURIComponent(id)}`)
