/**
 * The team's UI feature flags (contract.md "Team settings": `history`, `snapshots`) and what a
 * signed-in user may see of their teams. The flags change only what the editor app's History
 * drawer shows, never an endpoint's answer: nothing else reads them.
 */
import { eq } from 'drizzle-orm'
import type { Conn, Db } from '../../db/client'
import { memberships, teams } from '../../db/schema'
import { notFound } from '../errors'
import { getTeam } from './service'

export interface TeamFeatures {
  history: boolean
  snapshots: boolean
}

/** The team's flags (both on unless a `PUT .../features` turned one off); 404 for an unknown team. */
export function readFeatures(conn: Conn, teamId: string): TeamFeatures {
  const team = getTeam(conn, teamId)
  if (!team) throw notFound('Team not found.')
  return { history: team.features.history !== false, snapshots: team.features.snapshots !== false }
}

/** Sets both flags at once (no site.changed: the site never sees them). */
export function setFeatures(db: Db, teamId: string, features: TeamFeatures): TeamFeatures {
  const value = { history: features.history, snapshots: features.snapshots }
  const changed = db.update(teams).set({ features: value }).where(eq(teams.id, teamId)).returning({ id: teams.id }).all()
  if (changed.length === 0) throw notFound('Team not found.')
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
export function teamsOf(conn: Conn, userId: string): MyTeam[] {
  const rows = conn.select({ teamId: memberships.teamId, capabilities: memberships.capabilities }).from(memberships)
    .where(eq(memberships.userId, userId)).orderBy(memberships.teamId).all()
  return rows.flatMap(({ teamId, capabilities }) => {
    const team = getTeam(conn, teamId)
    if (!team) return []
    return [{ id: teamId, capabilities, locales: team.locales, defaultLocale: team.defaultLocale, features: readFeatures(conn, teamId) }]
  })
}
