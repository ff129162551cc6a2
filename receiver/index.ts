/** What a webhook receiver imports: `import { verifySignature, createDedupe } from 'content-service/receiver'`. */
export { verifySignature } from './verify'
export { createDedupe, type Dedupe } from './dedupe'
export { startExampleReceiver, type ReceiverOptions } from './example'
export type { EventPayload } from '../api/webhooks/model'
