/**
 * db/pg/schema.ts is db/schema.ts on PostgreSQL: every table, column, key, foreign key and index
 * of one has its twin in the other, read through drizzle's `getTableConfig`, so a column added to
 * one schema alone fails here instead of in a query on the other database.
 */
import { describe, expect, test } from 'bun:test'
import { getTableName, is } from 'drizzle-orm'
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core'
import * as sqlite from '../../../db/schema'
import * as pg from '../../../db/pg/schema'

/** What PostgreSQL type a SQLite column may become (db/pg/schema.ts says why). */
const TWIN_TYPES: Record<string, string[]> = {
  SQLiteText: ['text'],
  SQLiteTextJson: ['json'],
  SQLiteBoolean: ['boolean'],
  SQLiteInteger: ['integer', 'bigint'],
}
/** Twins that differ on purpose, each with its reason in db/pg/schema.ts. */
const COLUMN_TYPE_EXCEPTIONS: Record<string, string> = { 'revisions.body': 'bytea' }
const INDEX_EXCEPTIONS = ['revisions.revisions_plain']

type Shape = ReturnType<typeof shapeOfSqlite>

function shapeOfSqlite(table: SQLiteTable) {
  const c = sqliteConfig(table)
  return {
    columns: Object.fromEntries(c.columns.map((col) => [col.name, { notNull: col.notNull, primary: col.primary, unique: col.isUnique, hasDefault: col.hasDefault, type: col.columnType }])),
    primaryKeys: c.primaryKeys.map((k) => k.columns.map((col) => col.name)),
    foreignKeys: c.foreignKeys.map((fk) => ({ ...refOf(fk.reference()), onDelete: fk.onDelete })).sort(byJson),
    indexes: c.indexes.map((i) => ({ name: i.config.name, unique: i.config.unique, width: i.config.columns.length, partial: i.config.where !== undefined })),
  }
}

function shapeOfPg(table: PgTable) {
  const c = pgConfig(table)
  return {
    columns: Object.fromEntries(c.columns.map((col) => [col.name, { notNull: col.notNull, primary: col.primary, unique: col.isUnique, hasDefault: col.hasDefault, type: col.getSQLType() }])),
    primaryKeys: c.primaryKeys.map((k) => k.columns.map((col) => col.name)),
    foreignKeys: c.foreignKeys.map((fk) => ({ ...refOf(fk.reference()), onDelete: fk.onDelete })).sort(byJson),
    indexes: c.indexes.map((i) => ({ name: i.config.name, unique: i.config.unique, width: i.config.columns.length, partial: i.config.where !== undefined })),
  }
}

const refOf = (r: { columns: { name: string }[]; foreignColumns: { name: string }[]; foreignTable: object }) => ({
  columns: r.columns.map((c) => c.name),
  foreignTable: getTableName(r.foreignTable as SQLiteTable),
  foreignColumns: r.foreignColumns.map((c) => c.name),
})
const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b))

const tablesOf = <T>(module: Record<string, unknown>, kind: abstract new (...args: never[]) => T) =>
  new Map(Object.values(module).filter((v): v is T => is(v, kind as never)).map((t) => [getTableName(t as SQLiteTable), t]))

const sqliteTables = tablesOf(sqlite, SQLiteTable)
const pgTables = tablesOf(pg, PgTable)

test('both schemas have the same tables', () => {
  expect(sqliteTables.size).toBeGreaterThan(10)
  expect([...pgTables.keys()].sort()).toEqual([...sqliteTables.keys()].sort())
})

describe.each([...sqliteTables.keys()].sort())('%s', (name) => {
  const lite: Shape = shapeOfSqlite(sqliteTables.get(name)!)
  const post = shapeOfPg(pgTables.get(name)!)

  test('same columns, nullability, keys and defaults', () => {
    const strip = (cols: Shape['columns']) => Object.fromEntries(Object.entries(cols).map(([k, { type: _, ...rest }]) => [k, rest]))
    expect(strip(post.columns)).toEqual(strip(lite.columns))
  })

  test('each column has a natural PostgreSQL type for its SQLite one', () => {
    const wrong = Object.entries(lite.columns).filter(([col, { type }]) => {
      const allowed = COLUMN_TYPE_EXCEPTIONS[`${name}.${col}`] ? [COLUMN_TYPE_EXCEPTIONS[`${name}.${col}`]] : TWIN_TYPES[type]
      return !allowed?.includes(post.columns[col]?.type)
    })
    expect(wrong.map(([col, { type }]) => `${col}: ${type} -> ${post.columns[col]?.type}`)).toEqual([])
  })

  test('same primary key and foreign keys', () => {
    expect(post.primaryKeys).toEqual(lite.primaryKeys)
    expect(post.foreignKeys).toEqual(lite.foreignKeys)
  })

  test('same indexes (name, uniqueness, width, partial or not)', () => {
    const kept = lite.indexes.filter((i) => !INDEX_EXCEPTIONS.includes(`${name}.${i.name}`))
    expect(post.indexes).toEqual(kept)
  })
})

test('the exceptions name columns and indexes that exist on SQLite', () => {
  for (const key of [...Object.keys(COLUMN_TYPE_EXCEPTIONS), ...INDEX_EXCEPTIONS]) {
    const [table, item] = key.split('.')
    const shape = shapeOfSqlite(sqliteTables.get(table)!)
    expect(item in shape.columns || shape.indexes.some((i) => i.name === item)).toBe(true)
  }
})
