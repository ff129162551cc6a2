/**
 * The `body-limit` plugin: a body over MAX_BODY_BYTES is `413 payload_too_large`, judged on its
 * declared length or, for a chunked body, by counting a copy before the route's parser reads it.
 */
import { Elysia } from 'elysia'
import { json } from './error-mapping'

export function bodyLimit(max: number) {
  const tooLarge = () => json(413, { error: 'payload_too_large', message: `The body exceeds ${max} bytes.` })
  return new Elysia({ name: 'body-limit', seed: max }).onRequest(({ request }) => {
    const length = request.headers.get('content-length')
    if (length !== null) return Number(length) > max ? tooLarge() : undefined
    // A client that goes away mid-body is not our failure: a 400 (which it will not read), not an error log line.
    if (request.body) {
      return exceeds(request.clone().body!, max).then(
        (over) => (over ? tooLarge() : undefined),
        () => json(400, { error: 'malformed_json', message: 'The request body could not be read to its end.' }),
      )
    }
  })
}

/** Whether a body stream holds more than `max` bytes; stops reading as soon as it does. */
async function exceeds(body: ReadableStream<Uint8Array>, max: number): Promise<boolean> {
  const reader = body.getReader()
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return false
      size += value.byteLength
      if (size > max) return true
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}
