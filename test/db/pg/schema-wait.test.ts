/**
 * The compiled dispatcher waits for the api's migration on PostgreSQL too (dispatcher/schema-wait.ts):
 * on a database with no tables it says so, warns naming DATABASE_URL (masked) while it waits, and
 * goes on once the migrations are applied, instead of failing every step on a missing table.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { pgHandle } from '../../../db/client'
import { pgClientOptions } from '../../../db/pg/client'
import { migratePg } from '../../../db/pg/migrate'
import { maskUrl } from '../../../db/pg/url'
import { waitForSchema } from '../../../dispatcher/schema-wait'
import { waitFor } from '../../helpers'
import { describePg, pgDatabase, type PgTestDatabase } from '../../pg/harness'

describePg('the compiled dispatcher waits for the schema on PostgreSQL', () => {
  let pg: PgTestDatabase
  let sql: SQL
  beforeAll(async () => {
    pg = await pgDatabase({ migrate: false })
    sql = new SQL(pgClientOptions(pg.url, { processName: 'test', poolSize: 2 }))
  })
  afterAll(async () => {
    await sql?.close()
    await pg?.drop()
  })

  test('an empty database: one info line, a warning naming DATABASE_URL, and the wait ends once the api has migrated', async () => {
    const lines: { level: string; msg: string; o: Record<string, unknown> }[] = []
    const log = {
      info: (o: object, msg: string) => lines.push({ level: 'info', msg, o: o as Record<string, unknown> }),
      warn: (o: object, msg: string) => lines.push({ level: 'warn', msg, o: o as Record<string, unknown> }),
    }
    const databaseUrl = maskUrl(pg.url)
    let done = false
    const waiting = waitForSchema(pgHandle(sql), log, { where: { databaseUrl }, pollMs: 10, warnAfterMs: 100 }).then(() => (done = true))
    const warning = await waitFor(() => lines.find((l) => l.level === 'warn'), 5000, 'a warning')
    expect(done).toBe(false)
    expect(warning).toEqual({
      level: 'warn', msg: 'still waiting for the api to migrate the database: is the api running, with the same DATABASE_URL?',
      o: { wanted: expect.any(Number), applied: 0, databaseUrl, waitedMs: expect.any(Number) },
    })
    expect(lines[0]).toEqual({ level: 'info', msg: 'waiting for the api to migrate the database', o: { wanted: warning.o.wanted, applied: 0 } })
    await migratePg(pg.url, { processName: 'test' })
    await waiting
    expect(done).toBe(true)
    // Migrated to exactly what this code knows: nothing more is said.
    const after: unknown[] = []
    await waitForSchema(pgHandle(sql), { info: (o) => after.push(o), warn: (o) => after.push(o) }, { where: { databaseUrl }, pollMs: 10 })
    expect(after).toEqual([])
  })
})
