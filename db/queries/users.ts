/**
 * Users and their memberships, as authentication and authorisation read them (core/auth.ts).
 */
import { and, eq } from 'drizzle-orm'
import { useClient, type Conn } from '../client'
import { memberships, users } from '../schema'

/** A user's stored token hash, or undefined for an unknown user. */
export async function userTokenHash(conn: Conn, userId: string): Promise<{ tokenHash: string } | undefined> {
  return await useClient(conn, () => conn.select({ tokenHash: users.tokenHash }).from(users).where(eq(users.id, userId)).get())
}

/** A user's membership of a team (its capabilities), or undefined for a non-member. */
export async function membershipOf(conn: Conn, teamId: string, userId: string): Promise<{ capabilities: string[] } | undefined> {
  return await useClient(conn, () => conn.select({ capabilities: memberships.capabilities }).from(memberships)
    .where(and(eq(memberships.teamId, teamId), eq(memberships.userId, userId))).get())
}

/** The user whose token hashes to `tokenHash`, or undefined. */
export async function userByTokenHash(conn: Conn, tokenHash: string): Promise<{ id: string } | undefined> {
  return await useClient(conn, () => conn.select({ id: users.id }).from(users).where(eq(users.tokenHash, tokenHash)).get())
}
