/**
 * Copies a SQLite database into an empty PostgreSQL one (docs/postgresql.md "Copying a SQLite
 * database"): every table of the plan (db/copy/plan.ts) in one PostgreSQL transaction, read from
 * one SQLite read transaction, so the copy is one consistent moment of the source even while the
 * api writes to it, and lands whole or not at all.
 */
import type { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import { CopyRefused, unfitValue } from './convert'
import type { TableCopy } from './plan'

/** Rows per INSERT at most (fewer for wide tables: PostgreSQL takes 65,535 parameters a statement). */
export const BATCH_ROWS = 1000
/** Bytes of values per INSERT at most, so a table of large documents is not held whole in memory. */
export const BATCH_BYTES = 8 * 1024 * 1024
const MAX_PARAMETERS = 65_535

export interface CopyOptions {
  batchRows?: number
  batchBytes?: number
}

/** What was copied: each table's rows, in the order written. */
export type CopyCounts = { table: string; rows: number }[]

/** Raised when the target holds data already: nothing was written. */
export class TargetNotEmpty extends CopyRefused {}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Copies every table of `plans` from `sqlite` (opened read-only, `safeIntegers`) into `pg`, which
 * must be migrated and hold no row in any of those tables. Throws `TargetNotEmpty` when it holds
 * some (naming how many teams, or the table), `CopyRefused` for a value PostgreSQL cannot take.
 */
export async function copyToPostgres(sqlite: Database, pg: SQL, plans: TableCopy[], opts: CopyOptions = {}): Promise<CopyCounts> {
  // Deferred: the first read below takes the snapshot every later read sees, whatever is
  // committed meanwhile; a read transaction blocks no writer (WAL).
  sqlite.exec('BEGIN')
  try {
    const expected = new Map(plans.map((p) => [p.name, Number(sqlite.query<{ n: bigint }, []>(`SELECT count(*) AS n FROM ${quote(p.name)}`).get()!.n)]))
    const lastIds = sqliteSequences(sqlite)
    return await pg.begin(async (tx) => {
      await tx.unsafe('SET LOCAL statement_timeout = 0')
      // No other process writes these tables until the copy commits (or reads a half copy: it cannot).
      await tx.unsafe(`LOCK TABLE ${plans.map((p) => quote(p.name)).join(', ')} IN EXCLUSIVE MODE`)
      await refuseNonEmpty(tx, plans)
      const counts: CopyCounts = []
      for (const plan of plans) {
        const rows = await copyTable(sqlite, tx, plan, opts)
        // The snapshot's count, read before any row: another count means a read outside the snapshot.
        if (rows !== expected.get(plan.name)) throw new Error(`${plan.name}: ${rows} rows copied, ${expected.get(plan.name)} counted`)
        counts.push({ table: plan.name, rows })
      }
      for (const plan of plans) for (const column of plan.identity) await moveSequence(tx, plan.name, column, lastIds.get(plan.name) ?? 0n)
      return counts
    })
  } finally {
    sqlite.exec('COMMIT')
  }
}

/** The target holds a team (the usual case: a database already in use), or any other row. */
async function refuseNonEmpty(tx: SQL, plans: TableCopy[]): Promise<void> {
  if (plans.some((p) => p.name === 'teams')) {
    const [{ n }] = await tx.unsafe('SELECT count(*)::int AS n FROM teams')
    if (n > 0) throw new TargetNotEmpty(`the target already holds ${n} team${n === 1 ? '' : 's'}: copy only into an empty, migrated database`)
  }
  for (const plan of plans) {
    const found = await tx.unsafe(`SELECT 1 FROM ${quote(plan.name)} LIMIT 1`)
    if (found.length > 0) throw new TargetNotEmpty(`the target's table ${plan.name} already holds rows: copy only into an empty, migrated database`)
  }
}

/** AUTOINCREMENT's high-water marks: a seq once used and deleted since is not given out again. */
function sqliteSequences(sqlite: Database): Map<string, bigint> {
  const exists = sqlite.query("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get()
  if (!exists) return new Map()
  return new Map(sqlite.query<{ name: string; seq: bigint }, []>('SELECT name, seq FROM sqlite_sequence').all().map((r) => [r.name, BigInt(r.seq)]))
}

/** Streams one table in rowid order, a bounded batch per INSERT. Answers the rows copied. */
async function copyTable(sqlite: Database, tx: SQL, plan: TableCopy, opts: CopyOptions): Promise<number> {
  const { name, columns } = plan
  const perInsert = Math.max(1, Math.min(opts.batchRows ?? BATCH_ROWS, Math.floor(MAX_PARAMETERS / columns.length)))
  const maxBytes = opts.batchBytes ?? BATCH_BYTES
  const head = `INSERT INTO ${quote(name)} (${columns.map((c) => quote(c.name)).join(', ')})${plan.identity.length ? ' OVERRIDING SYSTEM VALUE' : ''} VALUES `
  const select = sqlite.query<Record<string, unknown>, []>(`SELECT _rowid_ AS "__rowid", ${columns.map((c) => quote(c.name)).join(', ')} FROM ${quote(name)} ORDER BY _rowid_`)
  let params: unknown[] = []
  let tuples: string[] = []
  let bytes = 0
  let copied = 0
  const flush = async () => {
    if (tuples.length === 0) return
    try {
      await tx.unsafe(head + tuples.join(', '), params)
    } catch (e) {
      throw new Error(`writing ${name}: ${(e as Error).message}${(e as { detail?: string }).detail ? ` (${(e as { detail?: string }).detail})` : ''}`)
    }
    copied += tuples.length
    params = []
    tuples = []
    bytes = 0
  }
  for (const row of select.iterate()) {
    const slots: string[] = []
    for (const column of columns) {
      let value: unknown
      try {
        value = column.convert(row[column.name])
      } catch (e) {
        throw unfitValue(e, name, column.name, row.__rowid as bigint)
      }
      params.push(value)
      slots.push(column.placeholder(params.length))
      bytes += typeof value === 'string' ? value.length : value instanceof Uint8Array ? value.byteLength : 8
    }
    tuples.push(`(${slots.join(', ')})`)
    if (tuples.length >= perInsert || bytes >= maxBytes) await flush()
  }
  await flush()
  return copied
}

/** Sets an identity column's sequence so the next row gets a value past every copied one (and past SQLite's high-water mark). */
async function moveSequence(tx: SQL, table: string, column: string, sqliteLast: bigint): Promise<void> {
  const [{ copied }] = await tx.unsafe(`SELECT max(${quote(column)})::text AS copied FROM ${quote(table)}`)
  const last = copied === null ? sqliteLast : BigInt(copied) > sqliteLast ? BigInt(copied) : sqliteLast
  // setval(seq, n, true): the next value is n + 1; with false (nothing used yet): n itself.
  await tx.unsafe(`SELECT setval(pg_get_serial_sequence($1, $2), $3::bigint, $4::boolean)`, [quote(table), column, last > 0n ? last.toString() : '1', last > 0n])
}
