/**
 * Rows a test arranges or reads straight in the database, on either engine (test/dialect.ts):
 * one SQL text with SQLite's `?` placeholders, run as written on SQLite and with them numbered
 * (`$1`, `$2`, ...) on PostgreSQL. Write SQL both take (`INSERT ... ON CONFLICT DO NOTHING`, not
 * `INSERT OR IGNORE`; no `json_extract`: read the text and parse it). PostgreSQL's `bigint`
 * columns (counts, `seq`, the ms times) come back as numbers, as SQLite gives them.
 */
import type { Conn } from '../db/client'
import { TEAM } from './helpers'

const INT8 = 20
const NUMERIC = 1700
const JSON_TYPES = [114, 3802]

const numbered = (sql: string) => {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

/** The rows `sql` answers. */
export async function rows<T = Record<string, any>>(db: Conn, sql: string, ...params: unknown[]): Promise<T[]> {
  if (db.engine === 'sqlite') return db.$client.query(sql).all(...(params as any[])) as T[]
  const result: any = await db.sql.unsafe(numbered(sql), params)
  const columns: { name: string; type: number }[] = result.columns ?? []
  const numeric = columns.filter((c) => c.type === INT8 || c.type === NUMERIC).map((c) => c.name)
  const json = columns.filter((c) => JSON_TYPES.includes(c.type)).map((c) => c.name)
  return [...result].map((row: Record<string, unknown>) => {
    for (const name of numeric) if (row[name] !== null && row[name] !== undefined) row[name] = Number(row[name])
    // SQLite answers JSON columns as their text: so do these (Bun.sql parses them).
    for (const name of json) if (row[name] !== null && typeof row[name] !== 'string') row[name] = JSON.stringify(row[name])
    return row as T
  })
}

/** The first row `sql` answers, or null. */
export async function row<T = Record<string, any>>(db: Conn, sql: string, ...params: unknown[]): Promise<T | null> {
  return (await rows<T>(db, sql, ...params))[0] ?? null
}

/** Runs a statement (or, on SQLite, several separated by `;` when given no parameters). */
export async function run(db: Conn, sql: string, ...params: unknown[]): Promise<void> {
  if (db.engine === 'sqlite') {
    if (params.length === 0) db.$client.exec(sql)
    else db.$client.query(sql).run(...(params as any[]))
    return
  }
  await db.sql.unsafe(numbered(sql), params)
}

/** How many rows of `table` match `where` (SQL after WHERE, `?` placeholders). */
export async function count(db: Conn, table: string, where = '', ...params: unknown[]): Promise<number> {
  const r = await row<{ n: number }>(db, `SELECT count(*) AS n FROM ${table}${where ? ` WHERE ${where}` : ''}`, ...params)
  return Number(r!.n)
}

/** The stored payload text of event `eventId` (byte for byte as written). */
export async function payloadText(db: Conn, eventId: string): Promise<string> {
  const r = await row<{ payload: string }>(db, 'SELECT payload FROM outbox_events WHERE event_id = ?', eventId)
  if (!r) throw new Error(`no outbox event ${eventId}`)
  return r.payload
}

/** The stored payload of event `eventId`, parsed. */
export const payloadOf = async (db: Conn, eventId: string): Promise<any> => JSON.parse(await payloadText(db, eventId))

/** Every stored event payload, parsed, in event id order. */
export const allPayloads = async (db: Conn): Promise<any[]> =>
  (await rows<{ payload: string }>(db, 'SELECT payload FROM outbox_events ORDER BY event_id')).map((r) => JSON.parse(r.payload))

/**
 * One delivery written straight into the outbox, with its event's bytes (once per event id), as
 * the api would have left it: for tests of the log, retention and deletion that need many rows.
 * `at` is its created, updated and next-attempt time. Answers its `seq`.
 */
export async function insertDelivery(db: Conn, d: {
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
export async function insertDeliveries(db: Conn, list: Parameters<typeof insertDelivery>[1][]): Promise<number[]> {
  return await db.transaction(async (tx) => {
    const seqs: number[] = []
    for (const d of list) seqs.push(await insertDelivery(tx, d))
    return seqs
  })
}

/** Rewrites the stored body of document `id` of `teamId` with `edit`, behind the api's back (a row as an older version left it). */
export async function editBody(db: Conn, teamId: string, id: string, edit: (body: any) => void): Promise<void> {
  const r = await row<{ body: string }>(db, 'SELECT CAST(body AS TEXT) AS body FROM documents WHERE team_id = ? AND id = ?', teamId, id)
  if (!r) throw new Error(`no document ${teamId} ${id}`)
  const body = JSON.parse(r.body)
  edit(body)
  await run(db, `UPDATE documents SET body = ${db.engine === 'pg' ? 'CAST(CAST(? AS TEXT) AS json)' : '?'} WHERE team_id = ? AND id = ?`, JSON.stringify(body), teamId, id)
}

/**
 * Makes every INSERT into `table` fail with `message` (a full disk or a broken constraint, as a
 * trigger stands in for it on either engine) until the answered function is called; `when` is
 * the trigger's condition on NEW, in SQL both engines read.
 */
export async function failInserts(db: Conn, table: string, message: string, when?: string): Promise<() => Promise<void>> {
  const name = `${table}_fails`
  if (db.engine === 'sqlite') {
    db.$client.exec(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table}${when ? ` WHEN ${when}` : ''} BEGIN SELECT RAISE(ABORT, '${message}'); END`)
    return async () => void db.$client.exec(`DROP TRIGGER ${name}`)
  }
  await db.sql.unsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$`)
  await db.sql.unsafe(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW${when ? ` WHEN (${when})` : ''} EXECUTE FUNCTION ${name}()`)
  return async () => {
    await db.sql.unsafe(`DROP TRIGGER ${name} ON ${table}`)
    await db.sql.unsafe(`DROP FUNCTION ${name}()`)
  }
}
