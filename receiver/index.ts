/**
 * What a webhook receiver imports: `import { verifySignature, createDedupe } from 'content-service/receiver'`.
 * The `.js` in the paths lets TypeScript read these sources under `moduleResolution: node16`/`nodenext`
 * too (with `customConditions: ["bun"]`); Bun resolves them to the `.ts` files.
 */
export { verifySignature, createDedupe, type Dedupe, type DedupeOptions, type EventPayload, type RawBody } from './portable.js'
export { startExampleReceiver, type ReceiverOptions } from './example.js'
