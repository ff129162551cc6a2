/**
 * A byte delta of one text against another (db/revision-body.ts): the target as a list of
 * copies from the base and literal runs, found by looking up 8-byte runs of the target in the
 * base. Applying it is a loop of `set` calls, a microsecond or two for a document, where a zstd
 * dictionary frame cost ten times that through node:zlib.
 *
 * Format: varint target length, then ops until the end: a varint `n`; an odd `n` copies
 * `n >> 1` bytes from the base at the varint offset that follows; an even `n` is followed by
 * `n >> 1` literal bytes.
 */

/** Shorter matches cost more to describe than to copy as literals. */
const MIN_MATCH = 8

/** The delta that rebuilds `target` from `base`. */
export function diffBytes(base: Uint8Array, target: Uint8Array): Uint8Array {
  const first = new Map<number, number>()
  for (let i = 0; i + MIN_MATCH <= base.length; i++) {
    const key = hash(base, i)
    if (!first.has(key)) first.set(key, i)
  }
  const out = new Writer(target.length + 16)
  out.varint(target.length)
  let literalFrom = 0
  let i = 0
  while (i + MIN_MATCH <= target.length) {
    const at = first.get(hash(target, i))
    let length = 0
    if (at !== undefined) while (i + length < target.length && at + length < base.length && base[at + length] === target[i + length]) length++
    if (length < MIN_MATCH) {
      i++
      continue
    }
    out.literal(target.subarray(literalFrom, i))
    out.varint(length * 2 + 1)
    out.varint(at!)
    i += length
    literalFrom = i
  }
  out.literal(target.subarray(literalFrom))
  return out.bytes()
}

/** Rebuilds the target from `base` and a delta made by `diffBytes`. */
export function patchBytes(base: Uint8Array, delta: Uint8Array): Uint8Array {
  const read = new Reader(delta)
  const out = new Uint8Array(read.varint())
  let at = 0
  while (!read.done()) {
    const n = read.varint()
    const length = n >>> 1
    if (n & 1) {
      const from = read.varint()
      if (from + length > base.length) throw new Error('A revision body delta copies past the end of its keyframe')
      out.set(base.subarray(from, from + length), at)
    } else {
      out.set(read.take(length), at)
    }
    at += length
  }
  if (at !== out.length) throw new Error('A revision body delta does not rebuild its stated length')
  return out
}

/** Eight bytes as a 32-bit key; collisions only cost a missed match, every match is checked. */
function hash(b: Uint8Array, i: number): number {
  const lo = (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0
  const hi = (b[i + 4]! | (b[i + 5]! << 8) | (b[i + 6]! << 16) | (b[i + 7]! << 24)) >>> 0
  return (Math.imul(lo, 0x9e3779b1) ^ hi) >>> 0
}

class Writer {
  private buf: Uint8Array
  private at = 0
  constructor(size: number) {
    this.buf = new Uint8Array(size)
  }
  private room(n: number) {
    if (this.at + n <= this.buf.length) return
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.at + n))
    grown.set(this.buf)
    this.buf = grown
  }
  varint(n: number) {
    this.room(8)
    do {
      let byte = n % 128
      n = Math.floor(n / 128)
      if (n > 0) byte |= 0x80
      this.buf[this.at++] = byte
    } while (n > 0)
  }
  literal(bytes: Uint8Array) {
    if (bytes.length === 0) return
    this.varint(bytes.length * 2)
    this.room(bytes.length)
    this.buf.set(bytes, this.at)
    this.at += bytes.length
  }
  bytes() {
    return this.buf.slice(0, this.at)
  }
}

/** Reads what `Writer` wrote; a truncated delta throws rather than rebuilding wrong bytes. */
export class Reader {
  at: number
  constructor(private readonly buf: Uint8Array, from = 0) {
    this.at = from
  }
  done() {
    return this.at >= this.buf.length
  }
  varint(): number {
    let value = 0
    let scale = 1
    while (this.at < this.buf.length) {
      const byte = this.buf[this.at++]!
      value += (byte & 0x7f) * scale
      if ((byte & 0x80) === 0) return value
      scale *= 128
    }
    throw new Error('A revision body delta ends inside a number')
  }
  take(n: number): Uint8Array {
    if (this.at + n > this.buf.length) throw new Error('A revision body delta ends inside a literal')
    this.at += n
    return this.buf.subarray(this.at - n, this.at)
  }
}

/** A varint as bytes (the keyframe reference at the head of a delta). */
export function varintBytes(n: number): number[] {
  const w = new Writer(8)
  w.varint(n)
  return [...w.bytes()]
}
