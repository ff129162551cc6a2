/** What a webhook receiver imports: `import { verifySignature, createDedupe } from 'content-service/receiver'`. */
export { verifySignature, createDedupe, type Dedupe } from './portable'
export { startExampleReceiver, type ReceiverOptions } from './example'
export type { EventPayload } from '../api/webhooks/model'
