/**
 * Bearer-token callers and team capabilities (contract.md "Callers and permissions").
 * Tokens are stored only as SHA-256 hashes.
 */
import type { Conn, Db } from '../db/client'
import { membershipOf, userByTokenHash, userTokenHash } from '../db/queries/users'
import { AppError } from './errors'

export const CAPABILITIES = ['EditContent', 'ChangeLiveContent', 'ManageWebhooks', 'ManageTeam'] as const
export type Capability = (typeof CAPABILITIES)[number]

export interface Caller {
  userId: string
  teamId: string
  capabilities: ReadonlySet<string>
}

export const hashToken = (token: string) => new Bun.CryptoHasher('sha256').update(token).digest('hex')

/** The longest bearer token read; a seed refuses a longer one (cli/seed.ts), which could never sign in. */
export const MAX_TOKEN_LENGTH = 512
const BEARER = new RegExp(`^Bearer\\s+(\\S{1,${MAX_TOKEN_LENGTH}})$`, 'i')

/** What a user whose token was revoked (seed `"token": null`) stores instead of a hash: no token hashes to it. */
export const revokedTokenHash = (userId: string) => `none:${userId}`

/**
 * Why `userId` may no longer do what `required` allows in `teamId` (token revoked, not a member,
 * a capability taken away), or null when they still may. Work queued in a user's name (a
 * scheduled publish) asks this when it runs, not only when it was queued.
 */
export async function withdrawnReason(db: Conn, teamId: string, userId: string, required: readonly Capability[]): Promise<string | null> {
  const user = await userTokenHash(db, userId)
  if (!user || user.tokenHash === revokedTokenHash(userId)) return `the token of user ${userId} has been revoked`
  const membership = await membershipOf(db, teamId, userId)
  if (!membership) return `user ${userId} is no longer a member of this team`
  const missing = required.filter((c) => !membership.capabilities.includes(c))
  return missing.length > 0 ? `user ${userId} no longer has ${missing.join(', ')}` : null
}

const unauthorized = () => new AppError(401, 'unauthorized', 'A valid bearer token is required.')
export const forbidden = (message: string) => new AppError(403, 'forbidden', message)

/** The user id behind a bearer token; throws 401 for a missing, malformed or unknown token. */
export async function authenticate(db: Db, authorization: string | undefined | null): Promise<{ id: string }> {
  const token = BEARER.exec(authorization ?? '')?.[1]
  if (!token) throw unauthorized()
  const user = await userByTokenHash(db, hashToken(token))
  if (!user) throw unauthorized()
  return user
}

/**
 * The user each request authenticated as, recorded by `authenticateRequest` (the app's
 * `onRequest`), so that a route's authorisation does not hash and look the token up again.
 */
const authenticated = new WeakMap<Request, { id: string }>()

/** `authenticate` for a request, remembered for the rest of its handling. */
export async function authenticateRequest(db: Db, request: Request): Promise<{ id: string }> {
  const user = await authenticate(db, request.headers.get('authorization'))
  authenticated.set(request, user)
  return user
}

/** The membership a request was authorised with, so a second check (the MCP route's own, then `requires`) reads it once. */
const members = new WeakMap<Request, Caller>()

/**
 * Resolves the caller of a request for the team named in the route, and checks `required`.
 * Throws 401 for a missing or unknown token, 403 for a non-member or a missing capability.
 */
export async function authorize(db: Db, request: Request, teamId: string, required: Capability[]): Promise<Caller> {
  const user = authenticated.get(request) ?? await authenticateRequest(db, request)
  let caller = members.get(request)
  if (caller?.teamId !== teamId) {
    const membership = await membershipOf(db, teamId, user.id)
    if (!membership) throw forbidden('You are not a member of this team.')
    caller = { userId: user.id, teamId, capabilities: new Set(membership.capabilities) }
    members.set(request, caller)
  }
  const { capabilities } = caller
  const missing = required.filter((c) => !capabilities.has(c))
  if (missing.length > 0) throw forbidden(`Missing capability: ${missing.join(', ')}.`)
  return caller
}

/** The caller a request was authorised as by `authorize`, if it was. */
export const callerOf = (request: Request): Caller | undefined => members.get(request)
