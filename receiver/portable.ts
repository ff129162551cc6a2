/**
 * The receiver helpers that need no Bun (Node 18+ too; they use `node:crypto` and `Buffer`):
 * built to `receiver/dist/index.js` (`bun run build:receiver`), which `package.json` exports to
 * every runtime but Bun, so a Next.js or Express receiver can import it without a TypeScript step.
 * ES module only. The `.js` in the paths is what the emitted `.d.ts` files need under
 * `moduleResolution: node16`/`nodenext` (without it every import was silently `any`).
 */
export { verifySignature, type RawBody } from './verify.js'
export { verifyStandardWebhook, DEFAULT_TOLERANCE_SECONDS, type HeaderSource, type StandardWebhookOptions } from './standard-webhooks.js'
export { createDedupe, type Dedupe, type DedupeOptions } from './dedupe.js'
export type { EventPayload } from './payload.js'
