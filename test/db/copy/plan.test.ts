/**
 * db/copy/plan.ts: what a copy to PostgreSQL refuses before it reads a row, and the order and
 * conversions it picks, from the two schemas and the SQLite file (no server needed).
 */
import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { getTableName, is } from 'drizzle-orm'
import { sqliteTable, SQLiteTable, text as liteText, integer as liteInteger } from 'drizzle-orm/sqlite-core'
import { pgTable, text, integer, bigint, boolean, timestamp } from 'drizzle-orm/pg-core'
import { planCopy } from '../../../db/copy/plan'
import { CopyRefused } from '../../../db/copy/convert'
import * as sqliteSchema from '../../../db/schema'
import * as pgSchema from '../../../db/pg/schema'
import { openDb } from '../../../db/client'

const liteParent = sqliteTable('parent', { id: liteText('id').primaryKey(), on: liteInteger('on', { mode: 'boolean' }).notNull() })
const liteChild = sqliteTable('child', { id: liteInteger('id').primaryKey({ autoIncrement: true }), parentId: liteText('parent_id').notNull(), at: liteInteger('at').notNull() })
const pgParent = pgTable('parent', { id: text('id').primaryKey(), on: boolean('on').notNull() })
const pgChild = pgTable('child', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  parentId: text('parent_id').notNull().references(() => pgParent.id),
  at: bigint('at', { mode: 'number' }).notNull(),
})

function file(...tables: string[]) {
  const db = new Database(':memory:', { safeIntegers: true })
  const ddl: Record<string, string> = {
    parent: 'CREATE TABLE parent (id TEXT PRIMARY KEY, "on" INTEGER NOT NULL)',
    child: 'CREATE TABLE child (id INTEGER PRIMARY KEY AUTOINCREMENT, parent_id TEXT NOT NULL, at INTEGER NOT NULL)',
  }
  for (const t of tables) db.exec(ddl[t] ?? t)
  return db
}

const refusal = (fn: () => unknown) => {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(CopyRefused)
    return (e as Error).message
  }
  throw new Error('not refused')
}

test('parents before children (by the PostgreSQL foreign keys), identity columns found, flags converted', () => {
  const plans = planCopy(file('child', 'parent'), { liteChild, liteParent }, { pgChild, pgParent })
  expect(plans.map((p) => [p.name, p.identity])).toEqual([['parent', []], ['child', ['id']]])
  const on = plans[0]!.columns.find((c) => c.name === 'on')!
  expect([on.convert(1n), on.convert(0n), on.convert(null)]).toEqual([true, false, null])
  expect(() => on.convert(2n)).toThrow('the integer 2 where a 0/1 flag is wanted') // the copy adds table, column and row
})

test('a table in the file that a schema lacks is refused, naming it', () => {
  expect(refusal(() => planCopy(file('parent', 'CREATE TABLE extra (x)'), { liteParent }, { pgParent }))).toBe('the SQLite table extra has no copier: db/schema.ts does not declare it')
  expect(refusal(() => planCopy(file('parent', 'child'), { liteParent, liteChild }, { pgParent }))).toBe('the SQLite table child has no copier: db/pg/schema.ts has no table of that name')
  expect(refusal(() => planCopy(file('parent'), { liteParent, liteChild }, { pgParent, pgChild }))).toMatch(/^the SQLite database has no table child: it is not at this version's schema/)
})

test('a column the PostgreSQL twin lacks, or a twin column nothing fills, is refused', () => {
  const narrow = pgTable('child', { id: bigint('id', { mode: 'number' }).primaryKey(), parentId: text('parent_id').notNull() })
  expect(refusal(() => planCopy(file('child'), { liteChild }, { narrow }))).toBe('the SQLite column child.at has no twin in db/pg/schema.ts')
  const wider = pgTable('child', { id: bigint('id', { mode: 'number' }).primaryKey(), parentId: text('parent_id').notNull(), at: bigint('at', { mode: 'number' }).notNull(), owner: text('owner').notNull() })
  expect(refusal(() => planCopy(file('child'), { liteChild }, { wider }))).toBe('the PostgreSQL column child.owner has no SQLite column to fill it and no default')
  const defaulted = pgTable('child', { id: bigint('id', { mode: 'number' }).primaryKey(), parentId: text('parent_id').notNull(), at: bigint('at', { mode: 'number' }).notNull(), owner: text('owner').notNull().default('x') })
  expect(planCopy(file('child'), { liteChild }, { defaulted })[0]!.columns.map((c) => c.name)).toEqual(['id', 'parent_id', 'at'])
})

test('a pair of column types the copy has no conversion for is refused before a row is read', () => {
  const stamped = pgTable('child', { id: integer('id').primaryKey(), parentId: text('parent_id').notNull(), at: timestamp('at').notNull() })
  expect(refusal(() => planCopy(file('child'), { liteChild }, { stamped }))).toBe('no conversion from SQLite integer to PostgreSQL timestamp for child.at')
})

test('integers: int4 range checked, int8 kept exact past 2^53', () => {
  const small = pgTable('child', { id: integer('id').primaryKey(), parentId: text('parent_id').notNull(), at: bigint('at', { mode: 'number' }).notNull() })
  const [plan] = planCopy(file('child'), { liteChild }, { small })
  const [id, , at] = plan!.columns
  expect(id!.convert(7n)).toBe(7)
  expect(() => id!.convert(2n ** 31n)).toThrow('2147483648 is out of range for integer')
  expect(at!.convert(2n ** 53n + 1n)).toBe(2n ** 53n + 1n)
})

test('the real schemas: every table of a fresh database has a copier', () => {
  const db = openDb(':memory:')
  const plans = planCopy(db.$client, sqliteSchema, pgSchema)
  expect(plans.map((p) => p.name).sort()).toEqual(Object.values(sqliteSchema).filter((v) => is(v, SQLiteTable)).map((t) => getTableName(t as SQLiteTable)).sort())
  expect(plans.findIndex((p) => p.name === 'teams')).toBeLessThan(plans.findIndex((p) => p.name === 'documents'))
  expect(plans.findIndex((p) => p.name === 'webhooks')).toBeLessThan(plans.findIndex((p) => p.name === 'outbox'))
  db.$client.close()
})
