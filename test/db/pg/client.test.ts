/**
 * db/pg/client.ts on the real server: every connection of the pool carries the process's
 * application_name and the two timeouts, the pool opens no more than its size, and the server
 * really ends a statement or an idle transaction that outlives its timeout.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { describePg, pgDatabase, type PgTestDatabase } from '../../pg/harness'
import { applicationName, openPg } from '../../../db/pg/client'
import { revisions, teams } from '../../../db/pg/schema'

let d: PgTestDatabase
beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) d = await pgDatabase()
})
afterAll(() => d?.drop())

describePg('PostgreSQL client', () => {
  test('every pooled connection has the application_name and timeouts; the pool opens at most its size', async () => {
    const processName = `client-test-${crypto.randomUUID().slice(0, 8)}`
    const db = openPg(d.url, { processName, poolSize: 3, statementTimeoutMs: 4321, idleInTransactionTimeoutMs: 8765 })
    try {
      // Six at once on a pool of three: three connections, each asked for its own settings.
      const rows = await Promise.all(Array.from({ length: 6 }, () => db.$client.unsafe(
        `SELECT pg_backend_pid() AS pid, current_setting('application_name') AS app, current_setting('statement_timeout') AS st,
                current_setting('idle_in_transaction_session_timeout') AS idle, pg_sleep(0.2)::text AS slept`,
      )))
      const seen = rows.map((r) => r[0] as { pid: number; app: string; st: string; idle: string })
      expect(new Set(seen.map((r) => r.pid)).size).toBe(3)
      expect(new Set(seen.map(({ app, st, idle }) => JSON.stringify({ app, st, idle })))).toEqual(new Set([JSON.stringify({ app: applicationName(processName), st: '4321ms', idle: '8765ms' })]))
      expect(applicationName(processName)).toBe(`content-service ${processName} pid ${process.pid}`)
    } finally {
      await db.$client.close()
    }
  })

  test('a statement past statement_timeout is cancelled by the server (57014)', async () => {
    const db = openPg(d.url, { processName: 'client-test', statementTimeoutMs: 200 })
    try {
      const started = Date.now()
      const error = await db.execute(sql`SELECT pg_sleep(5)`).then(() => null, (e) => e)
      expect({ errno: error?.cause?.errno ?? error?.errno, fast: Date.now() - started < 3000 }).toEqual({ errno: '57014', fast: true })
    } finally {
      await db.$client.close()
    }
  })

  test('a transaction left idle past its timeout is ended by the server, with its locks', async () => {
    const db = openPg(d.url, { processName: 'client-test', idleInTransactionTimeoutMs: 300 })
    try {
      await db.insert(teams).values({ id: 't1', workspaceId: 'w', locales: ['en'], defaultLocale: 'en', createdAt: '2026-01-01T00:00:00.0000000Z' })
      const outcome = await db.transaction(async (tx) => {
        await tx.execute(sql`SELECT * FROM teams WHERE id = 't1' FOR UPDATE`)
        await Bun.sleep(1000) // idle inside the transaction
        await tx.execute(sql`SELECT 1`)
      }).then(() => 'committed', () => 'ended')
      expect(outcome).toBe('ended')
      // The row lock went with it: another transaction takes it at once.
      const again = await db.transaction((tx) => tx.execute(sql`SELECT id FROM teams WHERE id = 't1' FOR UPDATE NOWAIT`))
      expect([...again]).toEqual([{ id: 't1' }])
    } finally {
      await db.$client.close()
    }
  })

  test('JSON columns keep their key order and bytea its bytes; ->> sees into JSON', async () => {
    const db = openPg(d.url, { processName: 'client-test' })
    try {
      const locales = ['fr', 'en']
      const fallbacks = { fr: 'en', de: 'fr', 'a"b': 'x' }
      await db.insert(teams).values({ id: 't2', workspaceId: 'w', locales, fallbacks, defaultLocale: 'fr', createdAt: '2026-01-01T00:00:00.1234567Z' })
      const [row] = await db.select().from(teams).where(sql`id = 't2'`)
      expect(JSON.stringify(row!.fallbacks)).toBe(JSON.stringify(fallbacks))
      expect(row!.locales).toEqual(locales)
      expect(row!.features).toEqual({ history: true, snapshots: true })
      expect(row!.createdAt).toBe('2026-01-01T00:00:00.1234567Z')
      const [seen] = await db.execute<{ de: string; text: string }>(sql`SELECT fallbacks ->> 'de' AS de, fallbacks::text AS text FROM teams WHERE id = 't2'`)
      expect(seen).toEqual({ de: 'fr', text: JSON.stringify(fallbacks) })
      const body = new Uint8Array([1, 0, 255, 0x7b, 0])
      await db.insert(revisions).values({ teamId: 't2', documentId: 'd', ordinal: 1, changeVector: 'A:1', body, stamped: true, createdAt: row!.createdAt })
      const [rev] = await db.select().from(revisions)
      expect({ seq: rev!.seq, body: [...rev!.body], stamped: rev!.stamped }).toEqual({ seq: 1, body: [...body], stamped: true })
    } finally {
      await db.$client.close()
    }
  })
})
