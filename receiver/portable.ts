/**
 * The receiver helpers that need no Bun (Node 18+ too; they use `node:crypto` and `Buffer`):
 * built to `receiver/dist/index.js` (`bun run build:receiver`), which `package.json` exports to
 * every runtime but Bun, so a Next.js or Express receiver can import it without a TypeScript step.
 */
export { verifySignature } from './verify'
export { createDedupe, type Dedupe } from './dedupe'
