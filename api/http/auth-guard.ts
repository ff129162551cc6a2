/**
 * The `requires` and `requiresAny` route options: the HTTP face of core/auth.ts.
 */
import { Elysia, type DocumentDecoration } from 'elysia'
import type { Db } from '../../db/client'
import { authorize, callerOf, forbidden, type Capability } from '../../core/auth'

/**
 * The `requires` route option. Authorisation runs in `transform`, after the body is parsed and
 * before Elysia validates it, so a non-member or a caller without the capability gets 403
 * whatever body they sent (contract.md "Callers and permissions"), never a 400 that would tell
 * them about the route's input. The team is the route's `activeTeam` or `teamId`. Handlers get
 * the result as `caller`. The capabilities go into the OpenAPI document as the operation's
 * `x-capabilities` (api/http/openapi-document.ts writes them into its description too).
 */
export function authGuard(db: Db) {
  return new Elysia().macro({
    requires: (required: Capability[]) => ({
      detail: { 'x-capabilities': [...required] } as DocumentDecoration,
      async transform({ params, request }) {
        const p = params as Record<string, string>
        await authorize(db, request, p.activeTeam ?? p.teamId ?? '', required)
      },
      resolve: ({ request }) => ({ caller: callerOf(request)! }),
    }),
    /** Like `requires`, but any one of `allowed` will do (reading what either capability writes or uses). */
    requiresAny: (allowed: Capability[]) => ({
      detail: { 'x-capabilities-any': [...allowed] } as DocumentDecoration,
      async transform({ params, request }) {
        const p = params as Record<string, string>
        const caller = await authorize(db, request, p.activeTeam ?? p.teamId ?? '', [])
        if (!allowed.some((c) => caller.capabilities.has(c))) throw forbidden(`Missing capability: one of ${allowed.join(', ')}.`)
      },
    }),
  })
}
