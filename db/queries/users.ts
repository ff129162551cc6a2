/**
 * Users and their memberships, as authentication and authorisation read them (core/auth.ts).
 */
import { and, eq } from 'drizzle-orm'
import { useClient, type SqliteConn as Conn } from '../client'
import { byDialect } from '../dialect'
import * as pg from '../pg/queries/users'
import { memberships, users } from '../schema'

/** A user's stored token hash, or undefined for an unknown user. */
async function userTokenHashOnSqlite(conn: Conn, userId: string): Promise<{ tokenHash: string } | undefined> {
  return await useClient(conn, () => conn.select({ tokenHash: users.tokenHash }).from(users).where(eq(users.id, userId)).get())
}

/** A user's membership of a team (its capabilities), or undefined for a non-member. */
async function membershipOfOnSqlite(conn: Conn, teamId: string, userId: string): Promise<{ capabilities: string[] } | undefined> {
  return await useClient(conn, () => conn.select({ capabilities: memberships.capabilities }).from(memberships)
    .where(and(eq(memberships.teamId, teamId), eq(memberships.userId, userId))).get())
}

/** The user whose token hashes to `tokenHash`, or undefined. */
async function userByTokenHashOnSqlite(conn: Conn, tokenHash: string): Promise<{ id: string } | undefined> {
  return await useClient(conn, () => conn.select({ id: users.id }).from(users).where(eq(users.tokenHash, tokenHash)).get())
}

/** Creates a user, or sets an existing one's token hash. */
async function upsertUserOnSqlite(tx: Conn, id: string, tokenHash: string): Promise<void> {
  return await useClient(tx, () => {
    tx.insert(users).values({ id, tokenHash }).onConflictDoUpdate({ target: users.id, set: { tokenHash } }).run()
  })
}

/** Makes a user a member of a team with these capabilities, or sets an existing member's. */
async function upsertMembershipOnSqlite(tx: Conn, m: { teamId: string; userId: string; capabilities: string[] }): Promise<void> {
  return await useClient(tx, () => {
    tx.insert(memberships).values(m).onConflictDoUpdate({ target: [memberships.teamId, memberships.userId], set: m }).run()
  })
}

export const userTokenHash = byDialect(userTokenHashOnSqlite, pg.userTokenHash)
export const membershipOf = byDialect(membershipOfOnSqlite, pg.membershipOf)
export const userByTokenHash = byDialect(userByTokenHashOnSqlite, pg.userByTokenHash)
export const upsertUser = byDialect(upsertUserOnSqlite, pg.upsertUser)
export const upsertMembership = byDialect(upsertMembershipOnSqlite, pg.upsertMembership)
