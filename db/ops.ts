/**
 * What the api's operations routes read (api/ops, api/webhooks/metrics.ts, api/web): the health
 * check and the outbox gauges, on either dialect (db/dialect.ts).
 */
import type { SQL } from 'bun'
import { useClient, type SqliteConn } from './client'
import { byDialect } from './dialect'

/** One round trip to the database: throws when it cannot answer. */
export const ping = byDialect(
  async (conn: SqliteConn) => void await useClient(conn, (c) => c.query('SELECT 1').get()),
  async (sql: SQL) => void await sql`SELECT 1`,
)

/** Outbox rows by status. */
export const outboxByStatus = byDialect(
  async (conn: SqliteConn) => await useClient(conn, (c) => c.query<{ status: string; n: number }, []>('SELECT status, COUNT(*) AS n FROM outbox GROUP BY status').all()),
  async (sql: SQL) => [...await sql`SELECT status, COUNT(*)::int AS n FROM outbox GROUP BY status`] as { status: string; n: number }[],
)

/** Stored delivery attempts by result class: 2xx .. 5xx, or `error` (no status: timeout, network, refused). */
export const attemptsByResult = byDialect(
  async (conn: SqliteConn) => await useClient(conn, (c) => c
    .query<{ result: string; n: number }, []>(`SELECT CASE WHEN status_code IS NULL THEN 'error' ELSE (status_code / 100) || 'xx' END AS result, COUNT(*) AS n
            FROM delivery_attempts GROUP BY result`)
    .all()),
  async (sql: SQL) => [...await sql`SELECT CASE WHEN status_code IS NULL THEN 'error' ELSE (status_code / 100) || 'xx' END AS result, COUNT(*)::int AS n
            FROM delivery_attempts GROUP BY 1`] as { result: string; n: number }[],
)
