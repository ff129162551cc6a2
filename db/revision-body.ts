/**
 * How a revision body is kept in `revisions.body` (docs/storage-and-growth.md). A body is the
 * exact JSON text publish wrote; it is stored either as that text (rows written before
 * compression, until the background conversion reaches them) or as a blob:
 *
 * - `0x01` + zstd frame: the whole text compressed on its own. Every keyframe (the revisions at
 *   ordinals 1, 1 + KEYFRAME_EVERY, 1 + 2 x KEYFRAME_EVERY, ... of a document) is stored so, and
 *   any other revision whose delta would be longer.
 * - `0x02` + varint seq + byte delta (db/byte-delta.ts): any other revision, as copies from the
 *   text of its keyframe (the row with that seq, of the same document) and literal bytes.
 *   Consecutive versions of a document differ in a few fields, so this is a few dozen bytes.
 *
 * A delta always points at a keyframe, never at another delta: a read decodes at most two rows.
 * Decoding gives back the stored text byte for byte, so every read is unchanged.
 */
import type { Database } from 'bun:sqlite'
import { diffBytes, patchBytes, Reader, varintBytes } from './byte-delta'

/** One keyframe per this many revisions of a document (docs/storage-and-growth.md: 8, 16, 32 measured). */
export const KEYFRAME_EVERY = 16

const FULL = 1
const DELTA = 2
/** zstd's default level: higher levels saved a few bytes a keyframe for twice the CPU. */
const LEVEL = 3

/** What `revisions.body` holds: JSON text (not yet converted) or an encoded blob. */
export type StoredBody = string | Uint8Array

/** The keyframe ordinal of a revision: the first ordinal of its run of KEYFRAME_EVERY. */
export const keyframeOf = (ordinal: number) => ordinal - ((ordinal - 1) % KEYFRAME_EVERY)

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The text compressed on its own (a keyframe, or a revision no delta would make shorter). */
export function encodeFull(text: string): Uint8Array {
  return concat([FULL], Bun.zstdCompressSync(encoder.encode(text), { level: LEVEL }))
}

/** The text as a delta against its keyframe's text (the row `baseSeq`), or whole when that is shorter. */
export function encodeDelta(text: string, baseSeq: number, baseText: string): Uint8Array {
  const bytes = encoder.encode(text)
  const delta = concat([DELTA, ...varintBytes(baseSeq)], diffBytes(encoder.encode(baseText), bytes))
  // A delta shorter than a zstd frame of the same text needs no second look (most do).
  if (delta.length <= 64) return delta
  const full = encodeFull(text)
  return full.length < delta.length ? full : delta
}

/**
 * The JSON text of a stored body. `base(seq)` gives the text of a delta's keyframe as UTF-8
 * bytes (`keyframeBytes` of that row's stored body).
 */
export function decodeBody(stored: StoredBody, base: (seq: number) => Uint8Array): string {
  if (typeof stored === 'string') return stored
  if (stored[0] === FULL) return decoder.decode(Bun.zstdDecompressSync(stored.subarray(1)))
  if (stored[0] !== DELTA) throw new Error(`Unknown revision body encoding ${stored[0]}`)
  const read = new Reader(stored, 1)
  const seq = read.varint()
  return decoder.decode(patchBytes(base(seq), stored.subarray(read.at)))
}

/** A keyframe's text as UTF-8 bytes; a keyframe is never a delta. */
export function keyframeBytes(stored: StoredBody): Uint8Array {
  if (typeof stored === 'string') return encoder.encode(stored)
  if (stored[0] === FULL) return Bun.zstdDecompressSync(stored.subarray(1))
  throw new Error(`A revision body delta points at a row that is not a keyframe (encoding ${stored[0]})`)
}

/**
 * Keyframe texts already decoded, per connection, by seq. Used only outside a transaction, where
 * every row read is committed: a committed revision is never rewritten with other text (the
 * conversion re-encodes the same text) and AUTOINCREMENT never reuses a seq. Inside a transaction
 * a row read may yet roll back and its seq be taken again, so nothing is cached there.
 */
const keyframes = new WeakMap<Database, Map<number, Uint8Array>>()
const KEYFRAMES_KEPT = 1024

/** `decodeBody` over a connection: the keyframe of a delta is read by seq, and cached when safe. */
export function decodeStored(client: Database, stored: StoredBody): string {
  return decodeBody(stored, (seq) => {
    const cacheable = !client.inTransaction
    let cache = keyframes.get(client)
    if (!cache) keyframes.set(client, (cache = new Map()))
    const hit = cacheable ? cache.get(seq) : undefined
    if (hit) return hit
    const row = client.query<{ body: StoredBody }, [number]>('SELECT body FROM revisions WHERE seq = ?').get(seq)
    if (!row) throw new Error(`The keyframe of a revision body (seq ${seq}) is missing`)
    const bytes = keyframeBytes(row.body)
    if (cacheable) {
      if (cache.size >= KEYFRAMES_KEPT) cache.delete(cache.keys().next().value!)
      cache.set(seq, bytes)
    }
    return bytes
  })
}

function concat(head: number[], tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + tail.length)
  out.set(head)
  out.set(tail, head.length)
  return out
}
