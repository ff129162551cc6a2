/**
 * Rows a test arranges or reads straight in the database, on either engine (test/dialect.ts):
 * one SQL text with SQLite's `?` placeholders, run as written on SQLite and with them numbered
 * (`$1`, `$2`, ...) on PostgreSQL. Write SQL both take (`INSERT ... ON CONFLICT DO NOTHING`, not
 * `INSERT OR IGNORE`; no `json_extract`: read the text and parse it). PostgreSQL's `bigint`
 * columns (counts, `seq`, the ms times) come back as numbers, as SQLite gives them.
 */
import type { Db } from '../db/client'
import { TEAM } from './helpers'

const INT8 = 20
const NUMERIC = 1700

const numbered = (sql: string) => {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

/** The rows `sql` answers. */
export async function rows<T = Record<string, any>>(db: Db, sql: string, ...params: unknown[]): Promise<T[]> {
  if (db.engine === 'sqlite') return db.$client.query(sql).all(...(params as any[])) as T[]
  const result: any = await db.sql.unsafe(numbered(sql), params)
  const numeric = (result.columns ?? []).filter((c: { type: number }) => c.type === INT8 || c.type === NUMERIC).map((c: { name: string }) => c.name)
  return [...result].map((row: Record<string, unknown>) => {
    for (const name of numeric) if (row[name] !== null && row[name] !== undefined) row[name] = Number(row[name])
    return row as T
  })
}

/** The first row `sql` answers, or null. */
export async function row<T = Record<string, any>>(db: Db, sql: string, ...params: unknown[]): Promise<T | null> {
  return (await rows<T>(db, sql, ...params))[0] ?? null
}

/** Runs a statement (or, on SQLite, several separated by `;` when given no parameters). */
export async function run(db: Db, sql: string, ...params: unknown[]): Promise<void> {
  if (db.engine === 'sqlite') {
    if (params.length === 0) db.$client.exec(sql)
    else db.$client.query(sql).run(...(params as any[]))
    return
  }
  await db.sql.unsafe(numbered(sql), params)
}

/** How many rows of `table` match `where` (SQL after WHERE, `?` placeholders). */
export async function count(db: Db, table: string, where = '', ...params: unknown[]): Promise<number> {
  const r = await row<{ n: number }>(db, `SELECT count(*) AS n FROM ${table}${where ? ` WHERE ${where}` : ''}`, ...params)
  return Number(r!.n)
}

/** The stored payload text of event `eventId` (byte for byte as written). */
export async function payloadText(db: Db, eventId: string): Promise<string> {
  const r = await row<{ payload: string }>(db, 'SELECT payload FROM outbox_events WHERE event_id = ?', eventId)
  if (!r) throw new Error(`no outbox event ${eventId}`)
  return r.payload
}

/** The stored payload of event `eventId`, parsed. */
export const payloadOf = async (db: Db, eventId: string): Promise<any> => JSON.parse(await payloadText(db, eventId))

/** Every stored event payload, parsed, in event id order. */
export const allPayloads = async (db: Db): Promise<any[]> =>
  (await rows<{ payload: string }>(db, 'SELECT payload FROM outbox_events ORDER BY event_id')).map((r) => JSON.parse(r.payload))

/**
 * One delivery written straight into the outbox, with its event's bytes (once per event id), as
 * the api would have left it: for tests of the log, retention and deletion that need many rows.
 * `at` is its created, updated and next-attempt time. Answers its `seq`.
 */
export async function insertDelivery(db: Db, d: {
  eventId: string; webhookId: string; status?: 'pending' | 'delivered' | 'failed'; attempts?: number; at?: number; lease?: [token: string, expiresAt: number]
}): Promise<number> {
  await run(db, 'INSERT INTO outbox_events (event_id, payload) VALUES (?, ?) ON CONFLICT DO NOTHING', d.eventId, '{"v":2}')
  const at = d.at ?? 0
  const r = await row<{ seq: number }>(db, `INSERT INTO outbox (event_id, webhook_id, team_id, event_type, status, attempts, next_attempt_at, created_at, updated_at, lease_token, lease_expires_at)
    VALUES (?, ?, ?, 'content.published', ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    d.eventId, d.webhookId, TEAM, d.status ?? 'delivered', d.attempts ?? 1, at, at, at, d.lease?.[0] ?? null, d.lease?.[1] ?? null)
  return Number(r!.seq)
}

/** Many deliveries at once, in one transaction (SQLite is slow one commit a row). */
export async function insertDeliveries(db: Db, list: Parameters<typeof insertDelivery>[1][]): Promise<number[]> {
  return await db.transaction(async (tx) => {
    const seqs: number[] = []
    for (const d of list) seqs.push(await insertDelivery(tx as Db, d))
    return seqs
  })
}
