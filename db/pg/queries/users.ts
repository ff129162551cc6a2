/** Users and their memberships on PostgreSQL: the async twins of db/queries/users.ts, on a Bun.sql client. */
import type { SQL } from 'bun'

/** A user's stored token hash, or undefined for an unknown user. */
export async function userTokenHash(sql: SQL, userId: string): Promise<{ tokenHash: string } | undefined> {
  const [r] = await sql`SELECT token_hash FROM users WHERE id = ${userId}`
  return r ? { tokenHash: r.token_hash } : undefined
}

/** A user's membership of a team (its capabilities), or undefined for a non-member. */
export async function membershipOf(sql: SQL, teamId: string, userId: string): Promise<{ capabilities: string[] } | undefined> {
  const [r] = await sql`SELECT capabilities::text AS capabilities FROM memberships WHERE team_id = ${teamId} AND user_id = ${userId}`
  return r ? { capabilities: JSON.parse(r.capabilities) } : undefined
}

/** The user whose token hashes to `tokenHash`, or undefined. */
export async function userByTokenHash(sql: SQL, tokenHash: string): Promise<{ id: string } | undefined> {
  const [r] = await sql`SELECT id FROM users WHERE token_hash = ${tokenHash}`
  return r ? { id: r.id } : undefined
}
