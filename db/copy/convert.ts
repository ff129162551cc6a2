/**
 * Column by column, what a SQLite value becomes in PostgreSQL (docs/postgresql.md "Copying a
 * SQLite database"). Chosen from the two schemas, the PostgreSQL column's type first: a pair of
 * types this file does not know refuses the copy before a row is read, so a column added later
 * with a new type cannot be copied wrong in silence.
 */
import type { Column } from 'drizzle-orm'

/** A reason the copy cannot go on, said in one line (the CLI prints it and exits 1). */
export class CopyRefused extends Error {}

/** A SQLite value (read with `safeIntegers`: integers are bigint) to the value PostgreSQL is sent. */
export type Convert = (value: unknown) => unknown

export interface ColumnCopy {
  name: string
  convert: Convert
  /** The placeholder `$n` as the INSERT writes it (a cast where the driver must not pick the type). */
  placeholder: (n: number) => string
}

const INT4 = { min: -2147483648n, max: 2147483647n }
const INT8 = { min: -(2n ** 63n), max: 2n ** 63n - 1n }

/** Why a value does not fit; the caller adds the table, column and row. */
class Unfit extends Error {}

const kind = (v: unknown) => (v instanceof Uint8Array ? 'a blob' : typeof v === 'bigint' ? `the integer ${v}` : typeof v === 'string' ? 'text' : `${typeof v} ${String(v)}`)

function integer(range: { min: bigint; max: bigint }, type: string): Convert {
  return (v) => {
    if (typeof v !== 'bigint') throw new Unfit(`${kind(v)} where ${type} is wanted`)
    if (v < range.min || v > range.max) throw new Unfit(`${v} is out of range for ${type}`)
    // int4 as a number; int8 as a bigint, exact past 2^53 (Bun.sql sends it as it is).
    return type === 'integer' ? Number(v) : v
  }
}

/** PostgreSQL text holds no NUL character; SQLite text may. Said, not dropped. */
function text(v: unknown): string {
  if (typeof v !== 'string') throw new Unfit(`${kind(v)} where text is wanted`)
  if (v.includes('\u0000')) throw new Unfit('text with a NUL character, which PostgreSQL text cannot hold')
  return v
}

const boolean: Convert = (v) => {
  if (v === 0n || v === 1n) return v === 1n
  throw new Unfit(`${kind(v)} where a 0/1 flag is wanted`)
}

/** How text in a SQLite column becomes the bytes of its PostgreSQL twin, for the columns that may hold either. */
export type EncodeText = (text: string) => Uint8Array

/**
 * A blob as bytes. Text in such a column (a revision body written before compression,
 * db/revision-body.ts) is encoded by `encodeText` when the column has one, and refused otherwise.
 */
const bytes = (encodeText: EncodeText | undefined): Convert => (v) => {
  const blob = typeof v === 'string' && encodeText ? encodeText(v) : v
  if (blob instanceof Uint8Array) return Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength)
  throw new Unfit(`${kind(v)} where a blob is wanted`)
}

/** The SQLite side of a column as the copy sees it: its declared type and drizzle mode. */
const sqliteKind = (c: Column) => (c.columnType === 'SQLiteBoolean' ? 'boolean' : c.getSQLType() === 'integer' ? 'integer' : c.getSQLType() === 'blob' ? 'blob' : 'text')

/**
 * How a SQLite column's values go into its PostgreSQL twin. Throws `CopyRefused` naming the column
 * when the pair of types is not one the copy knows.
 */
export function columnCopy(table: string, sqlite: Column, pg: Column, encodeText?: EncodeText): ColumnCopy {
  const from = sqliteKind(sqlite)
  const to = pg.getSQLType().toLowerCase()
  const plain = (n: number) => `$${n}`
  const pick = (): [Convert, (n: number) => string] | null => {
    if (from === 'boolean') return to === 'boolean' ? [boolean, plain] : null
    if (from === 'integer') {
      if (to === 'integer') return [integer(INT4, 'integer'), plain]
      if (to === 'bigint') return [integer(INT8, 'bigint'), plain]
      return null
    }
    if (to === 'text' || to.startsWith('varchar') || to.startsWith('character varying')) return [text, plain]
    // Given as text and parsed by the server: Bun.sql would send a JS string as a JSON string.
    if (to === 'jsonb' || to === 'json') return [text, (n) => `$${n}::text::${to}`]
    if (to === 'bytea') return [bytes(encodeText), plain]
    return null
  }
  const chosen = pick()
  if (!chosen) throw new CopyRefused(`no conversion from SQLite ${from} to PostgreSQL ${to} for ${table}.${sqlite.name}`)
  const [convert, placeholder] = chosen
  return {
    name: sqlite.name,
    placeholder,
    convert: (v) => (v === null ? null : convert(v)),
  }
}

/** The one line said when a value cannot be converted: where it is, and why. */
export function unfitValue(e: unknown, table: string, column: string, rowid: bigint): Error {
  if (e instanceof Unfit) return new CopyRefused(`${table}.${column} of row ${rowid}: ${e.message}`)
  return e as Error
}
