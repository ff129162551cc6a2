/**
 * What a webhook receiver imports: `import { verifySignature, createDedupe } from 'content-service/receiver'`.
 * The `.js` in the paths lets TypeScript read these sources under `moduleResolution: node16`/`nodenext`
 * too (with `customConditions: ["bun"]`); Bun resolves them to the `.ts` files.
 */
export {
  verifySignature, verifyStandardWebhook, DEFAULT_TOLERANCE_SECONDS, createDedupe,
  type Dedupe, type DedupeOptions, type EventPayload, type HeaderSource, type RawBody, type StandardWebhookOptions,
} from './portable.js'
export { startExampleReceiver, type ReceiverOptions } from './example.js'
