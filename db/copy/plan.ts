/**
 * Which tables a copy from SQLite to PostgreSQL writes, in what order, and how each column is
 * converted: all read from the two schemas (db/schema.ts and its twin db/pg/schema.ts) and from
 * the SQLite file itself, never listed by hand, so a table added later is copied without a change
 * here, and a table the schemas do not know refuses the copy instead of being left behind.
 */
import type { Database } from 'bun:sqlite'
import { getTableName, is, type Column, type Table } from 'drizzle-orm'
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core'
import { columnCopy, CopyRefused, type ColumnCopy, type EncodeText } from './convert'
import { encodeFull } from '../revision-body'

export interface TableCopy {
  name: string
  /** The SQLite columns, each with its conversion; PostgreSQL-only columns take their defaults. */
  columns: ColumnCopy[]
  /** The PostgreSQL columns fed by an identity sequence, moved past the copied values after the copy. */
  identity: string[]
}

/**
 * Columns that hold text in some SQLite rows and bytes in PostgreSQL: a revision body written
 * before compression (db/revision-body.ts) becomes the encoding of that same text, which reads
 * back byte for byte. (Deltas name their keyframe by seq, which the copy keeps.)
 */
const TEXT_AS_BYTES: Record<string, EncodeText> = { 'revisions.body': encodeFull }

/** Tables of SQLite's own, or drizzle's, that belong to no schema and are not copied. */
const OWN_TABLES = /^(sqlite_|__drizzle_migrations$)/

/** The drizzle tables a schema module exports, by SQL name. */
function tablesOf<T extends Table>(schema: Record<string, unknown>, kind: typeof SQLiteTable | typeof PgTable): Map<string, T> {
  const tables = new Map<string, T>()
  for (const value of Object.values(schema)) if (is(value, kind)) tables.set(getTableName(value as Table), value as T)
  return tables
}

/** The tables the SQLite file holds, and the columns of each as the file has them. */
function fileTables(sqlite: Database): Map<string, string[]> {
  const names = sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((r) => r.name)
  return new Map(names.filter((n) => !OWN_TABLES.test(n)).map((n) => [n, sqlite.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${n.replaceAll("'", "''")}')`).all().map((c) => c.name)]))
}

/**
 * The copy of every table of the SQLite file, parents before the tables whose foreign keys name
 * them. Refuses (`CopyRefused`, naming it) a table or column of the file that either schema lacks,
 * a PostgreSQL column the file cannot fill that has no default, and a pair of column types with
 * no conversion.
 */
export function planCopy(sqlite: Database, sqliteSchema: Record<string, unknown>, pgSchema: Record<string, unknown>): TableCopy[] {
  const fromSchema = tablesOf<SQLiteTable>(sqliteSchema, SQLiteTable)
  const toSchema = tablesOf<PgTable>(pgSchema, PgTable)
  const file = fileTables(sqlite)
  for (const name of file.keys()) {
    if (!fromSchema.has(name)) throw new CopyRefused(`the SQLite table ${name} has no copier: db/schema.ts does not declare it`)
    if (!toSchema.has(name)) throw new CopyRefused(`the SQLite table ${name} has no copier: db/pg/schema.ts has no table of that name`)
  }
  for (const name of fromSchema.keys()) {
    if (!file.has(name)) throw new CopyRefused(`the SQLite database has no table ${name}: it is not at this version's schema (start the api on it once, which migrates it, then copy)`)
  }
  const plans = [...file].map(([name, fileColumns]) => planTable(name, fileColumns, fromSchema.get(name)!, toSchema.get(name)!))
  return parentsFirst(plans, toSchema)
}

function planTable(name: string, fileColumns: string[], sqliteTable: SQLiteTable, pgTable: PgTable): TableCopy {
  const from = new Map<string, Column>(sqliteConfig(sqliteTable).columns.map((c) => [c.name, c]))
  const to = new Map<string, Column>(pgConfig(pgTable).columns.map((c) => [c.name, c]))
  const columns = fileColumns.map((column) => {
    const s = from.get(column)
    const p = to.get(column)
    if (!s) throw new CopyRefused(`the SQLite column ${name}.${column} is not in db/schema.ts: this database is from another version`)
    if (!p) throw new CopyRefused(`the SQLite column ${name}.${column} has no twin in db/pg/schema.ts`)
    return columnCopy(name, s, p, TEXT_AS_BYTES[`${name}.${column}`])
  })
  for (const [column, p] of to) {
    if (!fileColumns.includes(column) && p.notNull && !p.hasDefault) {
      throw new CopyRefused(`the PostgreSQL column ${name}.${column} has no SQLite column to fill it and no default`)
    }
  }
  const identity = [...to.values()].filter((c) => (c as Column & { generatedIdentity?: unknown }).generatedIdentity).map((c) => c.name)
  return { name, columns, identity }
}

/** Orders the tables so that a row's foreign keys always name rows already copied. */
function parentsFirst(plans: TableCopy[], toSchema: Map<string, PgTable>): TableCopy[] {
  const byName = new Map(plans.map((p) => [p.name, p]))
  const done = new Set<string>()
  const ordered: TableCopy[] = []
  const visit = (name: string, path: string[]) => {
    if (done.has(name)) return
    if (path.includes(name)) throw new CopyRefused(`the foreign keys of ${[...path, name].join(' -> ')} form a cycle the copy cannot order`)
    for (const fk of pgConfig(toSchema.get(name)!).foreignKeys) {
      const parent = getTableName(fk.reference().foreignTable)
      if (parent !== name && byName.has(parent)) visit(parent, [...path, name])
    }
    done.add(name)
    ordered.push(byName.get(name)!)
  }
  for (const p of plans) visit(p.name, [])
  return ordered
}
