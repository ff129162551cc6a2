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

/** Creates a user, or sets an existing one's token hash. */
export async function upsertUser(tx: SQL, id: string, tokenHash: string): Promise<void> {
  await tx`INSERT INTO users (id, token_hash) VALUES (${id}, ${tokenHash}) ON CONFLICT (id) DO UPDATE SET token_hash = EXCLUDED.token_hash`
}

/** Makes a user a member of a team with these capabilities, or sets an existing member's. */
export async function upsertMembership(tx: SQL, m: { teamId: string; userId: string; capabilities: string[] }): Promise<void> {
  await tx`INSERT INTO memberships (team_id, user_id, capabilities) VALUES (${m.teamId}, ${m.userId}, ${JSON.stringify(m.capabilities)}::text::json)
    ON CONFLICT (team_id, user_id) DO UPDATE SET capabilities = EXCLUDED.capabilities`
}
