/**
 * The team's UI feature flags (contract.md "Team settings": `history`, `snapshots`) and what a
 * signed-in user may see of their teams. The flags change only what the editor app's History
 * drawer shows, never an endpoint's answer: nothing else reads them.
 */
import type { Conn, Db } from '../../db/client'
import { membershipsOf, updateTeamFeatures } from '../../db/queries/teams'
import { notFound } from '../errors'
import { getTeam } from './service'

export interface TeamFeatures {
  history: boolean
  snapshots: boolean
}

/** The team's flags (both on unless a `PUT .../features` turned one off); 404 for an unknown team. */
export async function readFeatures(conn: Conn, teamId: string): Promise<TeamFeatures> {
  const team = await getTeam(conn, teamId)
  if (!team) throw notFound('Team not found.')
  return { history: team.features.history !== false, snapshots: team.features.snapshots !== false }
}

/** Sets both flags at once (no site.changed: the site never sees them). */
export async function setFeatures(db: Db, teamId: string, features: TeamFeatures): Promise<TeamFeatures> {
  const value = { history: features.history, snapshots: features.snapshots }
  if (!(await updateTeamFeatures(db, teamId, value))) throw notFound('Team not found.')
  return value
}

export interface MyTeam {
  id: string
  capabilities: string[]
  locales: string[]
  defaultLocale: string
  features: TeamFeatures
}

/** The teams `userId` belongs to, with their capabilities, locales and flags, by team id. */
export async function teamsOf(conn: Conn, userId: string): Promise<MyTeam[]> {
  const rows = await membershipsOf(conn, userId)
  const mine: MyTeam[] = []
  for (const { teamId, capabilities } of rows) {
    const team = await getTeam(conn, teamId)
    if (team) mine.push({ id: teamId, capabilities, locales: team.locales, defaultLocale: team.defaultLocale, features: await readFeatures(conn, teamId) })
  }
  return mine
}
