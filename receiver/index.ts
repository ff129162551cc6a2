/** What a webhook receiver imports: `import { verifySignature, createDedupe } from 'content-service/receiver'`. */
export { verifySignature, createDedupe, type Dedupe, type DedupeOptions, type EventPayload, type RawBody } from './portable'
export { startExampleReceiver, type ReceiverOptions } from './example'
