/**
 * How a revision body is kept in `revisions.body` (docs/storage-and-growth.md). A body is the
 * exact JSON text publish wrote; it is stored either as that text (rows written before
 * compression, until the background conversion reaches them) or as a blob:
 *
 * - `0x01` + zstd frame: a keyframe, the whole text compressed on its own. The revisions at
 *   ordinals 1, 1 + KEYFRAME_EVERY, 1 + 2 x KEYFRAME_EVERY, ... of a document are keyframes.
 * - `0x02` + varint seq + zstd frame: any other revision, compressed with the text of its
 *   keyframe (the row with that seq, of the same document) as the dictionary. Consecutive
 *   versions of a document differ in a few fields, so this frame is a few dozen bytes.
 *
 * A delta always points at a keyframe, never at another delta: a read decodes at most two rows.
 * Decoding gives back the stored text byte for byte, so every read is unchanged.
 */
import type { Database } from 'bun:sqlite'
import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib'

/** One keyframe per this many revisions of a document (docs/storage-and-growth.md: 8, 16, 32 measured). */
export const KEYFRAME_EVERY = 16

const FULL = 1
const DELTA = 2
/** zstd's default level: higher levels saved a few bytes a version for twice the publish CPU. */
const LEVEL = 3

/** What `revisions.body` holds: JSON text (not yet converted) or an encoded blob. */
export type StoredBody = string | Uint8Array

/** The keyframe ordinal of a revision: the first ordinal of its run of KEYFRAME_EVERY. */
export const keyframeOf = (ordinal: number) => ordinal - ((ordinal - 1) % KEYFRAME_EVERY)

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const params = { params: { [constants.ZSTD_c_compressionLevel]: LEVEL } }

/** A keyframe: the text compressed on its own. */
export function encodeFull(text: string): Uint8Array {
  return concat([FULL], Bun.zstdCompressSync(encoder.encode(text), { level: LEVEL }))
}

/** A delta: the text compressed against its keyframe's text (the row `baseSeq`). */
export function encodeDelta(text: string, baseSeq: number, baseText: string): Uint8Array {
  const frame = zstdCompressSync(encoder.encode(text), { ...params, dictionary: encoder.encode(baseText) })
  return concat([DELTA, ...varint(baseSeq)], frame)
}

/**
 * The JSON text of a stored body. `base(seq)` loads the stored body of a delta's keyframe (a
 * rowid lookup); a keyframe is never a delta, so this recurses at most once.
 */
export function decodeBody(stored: StoredBody, base: (seq: number) => StoredBody): string {
  if (typeof stored === 'string') return stored
  if (stored[0] === FULL) return decoder.decode(Bun.zstdDecompressSync(stored.subarray(1)))
  if (stored[0] !== DELTA) throw new Error(`Unknown revision body encoding ${stored[0]}`)
  const { value: seq, next } = readVarint(stored, 1)
  const baseText = decodeBody(base(seq), () => {
    throw new Error(`The keyframe of a revision body (seq ${seq}) is itself a delta`)
  })
  return decoder.decode(zstdDecompressSync(stored.subarray(next), { dictionary: encoder.encode(baseText) }))
}

/**
 * Keyframe texts already decoded, per connection, by seq. Used only outside a transaction, where
 * every row read is committed: a committed revision is never rewritten with other text (the
 * conversion re-encodes the same text) and AUTOINCREMENT never reuses a seq. Inside a transaction
 * a row read may yet roll back and its seq be taken again, so nothing is cached there.
 */
const keyframes = new WeakMap<Database, Map<number, string>>()
const KEYFRAMES_KEPT = 1024

/** `decodeBody` over a connection: the keyframe of a delta is read by seq, and cached when safe. */
export function decodeStored(client: Database, stored: StoredBody): string {
  if (typeof stored === 'string' || stored[0] === FULL) return decodeBody(stored, noBase)
  const cacheable = !client.inTransaction
  let cache = keyframes.get(client)
  if (!cache) keyframes.set(client, (cache = new Map()))
  const seq = readVarint(stored, 1).value
  const hit = cacheable ? cache.get(seq) : undefined
  const baseText = hit ?? decodeBody(loadStored(client, seq), noBase)
  if (cacheable && hit === undefined) {
    if (cache.size >= KEYFRAMES_KEPT) cache.delete(cache.keys().next().value!)
    cache.set(seq, baseText)
  }
  return decodeBody(stored, () => baseText)
}

function loadStored(client: Database, seq: number): StoredBody {
  const row = client.query<{ body: StoredBody }, [number]>('SELECT body FROM revisions WHERE seq = ?').get(seq)
  if (!row) throw new Error(`The keyframe of a revision body (seq ${seq}) is missing`)
  return row.body
}

const noBase = (seq: number): never => {
  throw new Error(`A keyframe revision body points at another row (seq ${seq})`)
}

function concat(head: number[], tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + tail.length)
  out.set(head)
  out.set(tail, head.length)
  return out
}

/** LEB128: seven bits a byte, low bits first; three bytes up to two million rows. */
function varint(n: number): number[] {
  const out: number[] = []
  do {
    let byte = n % 128
    n = Math.floor(n / 128)
    if (n > 0) byte |= 0x80
    out.push(byte)
  } while (n > 0)
  return out
}

function readVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0
  let scale = 1
  for (let i = at; i < bytes.length; i++) {
    value += (bytes[i]! & 0x7f) * scale
    if ((bytes[i]! & 0x80) === 0) return { value, next: i + 1 }
    scale *= 128
  }
  throw new Error('A revision body delta ends inside its keyframe reference')
}
