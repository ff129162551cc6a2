/**
 * What the query twin tests share (db/queries/* against db/pg/queries/*): a fresh SQLite file and
 * a fresh PostgreSQL database, both holding team `acme`, and `same`, which awaits one call on each
 * and compares the answers whole (types included: a number is not a string, 1 is not true).
 */
import { expect } from 'bun:test'
import type { SQL } from 'bun'
import type { Database } from 'bun:sqlite'
import type { SqliteDb as Db } from '../../../../db/client'
import { outboxTestDb } from '../outbox/fixtures'
import { sqliteTwin } from '../sqlite-twin'

export interface QueriesTwin {
  /** The PostgreSQL pool. */
  sql: SQL
  /** The SQLite database (drizzle, with async transactions) and its raw client. */
  db: Db
  c: Database
  close(): Promise<void>
}

/** A fresh pair, each with team `acme` as test/db/pg/sqlite-twin.ts writes it. */
export async function queriesTwin(): Promise<QueriesTwin> {
  const pg = await outboxTestDb(4)
  await pg.sql`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES ('acme', 'main', '["en"]'::json, 'en', '2026-01-01T00:00:00.0000000Z')`
  const lite = sqliteTwin()
  return {
    sql: pg.sql, db: lite.db, c: lite.db.$client,
    async close() {
      lite.close()
      await pg.drop()
    },
  }
}

/** Awaits `pg` and `lite` (in that order) and expects the same answer; returns it. `label` names the call in a failure. */
export async function same<T>(label: unknown, pg: Promise<T>, lite: Promise<T>): Promise<T> {
  const a = await pg
  const b = await lite
  expect({ label, answer: a }).toStrictEqual({ label, answer: b })
  return a
}

/**
 * Rows as plain values, so the two databases' tables compare: bigint-as-string and booleans made
 * numbers (SQLite's 0/1), JSON text parsed (PostgreSQL's `json` columns come parsed), bytes as bytes.
 */
export const plain = (rows: Iterable<Record<string, unknown>>) => [...rows].map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plainValue(k, v)])))
const plainValue = (k: string, v: unknown) => {
  if (typeof v === 'boolean') return Number(v)
  if (typeof v !== 'string' || k === 'payload') return v
  if (/^\d+$/.test(v)) return Number(v)
  return /^[[{"]/.test(v) ? JSON.parse(v) : v
}

/** The same SELECT on both (text both dialects read), as plain rows. */
export async function tables(t: QueriesTwin, query: string) {
  return { pg: plain(await t.sql.unsafe(query)), lite: plain(t.c.query(query).all() as Record<string, unknown>[]) }
}

/** Expects `query` to read the same rows on both. */
export async function sameTable(t: QueriesTwin, query: string) {
  const { pg, lite } = await tables(t, query)
  expect({ query, rows: pg }).toEqual({ query, rows: lite })
}
