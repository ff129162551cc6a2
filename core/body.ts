/**
 * Rules every request body meets before any schema or handler looks at it: JSON only, and
 * nested at most MAX_BODY_DEPTH deep.
 */
import { AppError } from './errors'

/** JSON bodies nest at most this deep: rich text trees stay far below, and nothing recurses into a stack overflow. */
export const MAX_BODY_DEPTH = 100

/**
 * Why a parsed body is refused before any schema sees it, or `null`: nested deeper than `max`
 * (walked without recursion, so any depth is safe to check), or a number JSON.parse could only
 * read as Infinity (`1e400`), which would be stored as `null`. `subject` names it in the reason
 * (the CLI's seed documents and index file meet the same rules).
 */
export function bodyProblem(value: unknown, max: number, subject = 'The body'): string | null {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v === 'number' && !Number.isFinite(v)) return `${subject} holds a number too large to store (it overflows to Infinity).`
    if (v === null || typeof v !== 'object') continue
    if (depth >= max) return `${subject} nests deeper than ${max} levels.`
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'number' || (child !== null && typeof child === 'object')) stack.push([child, depth + 1])
    }
  }
  return null
}

/** Throws `400 invalid_body` for a parsed body nested deeper than MAX_BODY_DEPTH, or holding an overflowing number. */
export function checkDepth(body: unknown): void {
  const problem = body === undefined ? null : bodyProblem(body, MAX_BODY_DEPTH)
  if (problem) throw new AppError(400, 'invalid_body', problem)
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * A request body as text, decoded strictly: bytes that are not UTF-8 are `400 malformed_json`
 * (RFC 8259 8.1), never replaced by U+FFFD. A replaced byte would make `pages/\xff` the same id
 * as `pages/\u{fffd}`, and a write to one would overwrite the other.
 */
export async function readBodyText(request: Request): Promise<string> {
  const bytes = await request.arrayBuffer()
  try {
    return UTF8.decode(bytes)
  } catch {
    throw new AppError(400, 'malformed_json', 'The request body is not valid UTF-8.')
  }
}

/** Parses a JSON body read with `readBodyText`; a syntax error is `400 malformed_json`. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await readBodyText(request)
  try {
    return JSON.parse(text)
  } catch {
    throw new AppError(400, 'malformed_json', 'The request body is not valid JSON.')
  }
}

/**
 * Whether a request's declared media type is JSON (`application/json` or `application/*+json`,
 * any case, any parameters). A form or multipart body would otherwise be parsed into fields
 * and stored as data.
 */
export function isJsonMediaType(contentType: string | null): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)
}

/**
 * Whether a JSON body's declared charset is one this service reads: none (JSON is UTF-8) or
 * `utf-8` in any case, quoted or not. `charset=iso-8859-1` would otherwise be decoded as UTF-8
 * and its text silently changed.
 */
export function isUtf8Charset(contentType: string | null): boolean {
  for (const param of (contentType ?? '').split(';').slice(1)) {
    const [name, value = ''] = param.split('=').map((x) => x.trim().toLowerCase())
    if (name === 'charset' && !['utf-8', 'utf8', '"utf-8"', '"utf8"'].includes(value)) return false
  }
  return true
}

/** The refusal of a body that did not arrive in time (RFC 9110 15.5.9). */
export const requestTimeout = (ms: number) =>
  new AppError(408, 'request_timeout', `The request body did not arrive in full within ${ms} ms of its headers.`)

/** Reads `body` to its end, or until it holds more than `max` bytes (the rest is left unread). */
async function readUpTo(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  while (size <= max) {
    const { done, value } = await reader.read()
    if (done) return Buffer.concat(chunks)
    chunks.push(value)
    size += value.byteLength
  }
  reader.cancel().catch(() => {})
  return Buffer.concat(chunks)
}

/**
 * `request`'s body, received within `ms` of its headers. A `Content-Length` that promises more
 * than is sent, or a chunked body that never ends, would otherwise hold the request and its
 * connection until the idle timeout, which is as long as a webhook test send may wait for its
 * receiver: past `ms` this throws `408 request_timeout`. The clock stops with the last byte, so
 * what the handler does next (that wait) is not counted. A chunked body is read only until it
 * holds more than `maxBytes` (the route then refuses it, 413, without the rest). A client that
 * goes away mid-body is `400 malformed_json`, as a handler reading it would say.
 */
export async function receiveBody(request: Request, ms: number, maxBytes: number): Promise<Uint8Array | ArrayBuffer> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(requestTimeout(ms)), ms)))
  // Whole bytes in one native call when the length is declared: a stream read costs more.
  const read = request.headers.has('content-length') ? request.arrayBuffer() : readUpTo(request.body!, maxBytes)
  read.catch(() => {}) // still pending when the deadline passed: its connection is closed with the 408
  try {
    return await Promise.race([read, expired])
  } catch (e) {
    if (e instanceof AppError) throw e
    throw new AppError(400, 'malformed_json', 'The request body could not be read to its end.')
  } finally {
    clearTimeout(timer)
  }
}
