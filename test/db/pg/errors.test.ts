/**
 * db/errors.ts reads real PostgreSQL errors, made on a real server, as the api must answer them:
 * busy (503) for a statement or lock timeout, a deadlock, a killed backend, a server that does not
 * answer; a unique key taken; anything else is neither. And db/pg/handle.ts runs a transaction
 * that lost a deadlock again instead of failing it.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { isBusy, isRetryable, isUniqueViolation } from '../../../db/errors'
import { pgHandle, type Tx } from '../../../db/client'
import { pgClientOptions } from '../../../db/pg/client'
import { describePg, pgDatabase, type PgTestDatabase } from '../../pg/harness'

const failure = async (run: () => Promise<unknown>) => {
  try {
    await run()
  } catch (e) {
    return e
  }
  throw new Error('expected it to fail')
}
const verdict = (e: unknown) => ({ busy: isBusy(e), unique: isUniqueViolation(e), retry: isRetryable(e) })

describePg('PostgreSQL errors as db/errors.ts reads them', () => {
  let pg: PgTestDatabase
  let sql: SQL
  beforeAll(async () => {
    pg = await pgDatabase()
    sql = new SQL(pgClientOptions(pg.url, { processName: 'test', poolSize: 4 }))
    await sql`CREATE TABLE race (id int PRIMARY KEY, n int NOT NULL DEFAULT 0)`
    await sql`INSERT INTO race (id) VALUES (1), (2)`
  })
  afterAll(async () => {
    await sql?.close()
    await pg?.drop()
  })

  /** Holds row `id` locked in another transaction while `run` runs; gives it back after. */
  async function whileLocked<T>(id: number, run: () => Promise<T>): Promise<T> {
    const { promise: held, resolve } = Promise.withResolvers<void>()
    const { promise: done, resolve: finish } = Promise.withResolvers<void>()
    const holder = sql.begin(async (tx) => {
      await tx`SELECT 1 FROM race WHERE id = ${id} FOR UPDATE`
      resolve()
      await done
    })
    await held
    try {
      return await run()
    } finally {
      finish()
      await holder
    }
  }

  test('statement and lock timeouts are busy', async () => {
    const statement = await failure(() => sql.begin(async (tx) => {
      await tx`SET LOCAL statement_timeout = 50`
      await tx`SELECT pg_sleep(1)`
    }))
    const lock = await whileLocked(1, () => failure(() => sql.begin(async (tx) => {
      await tx`SET LOCAL lock_timeout = 50`
      await tx`UPDATE race SET n = n + 1 WHERE id = 1`
    })))
    expect([verdict(statement), verdict(lock)]).toEqual([{ busy: true, unique: false, retry: false }, { busy: true, unique: false, retry: false }])
  })

  test('a deadlock is busy and retryable; a unique key taken is a unique violation and retryable', async () => {
    const { promise: bothHold, resolve } = Promise.withResolvers<void>()
    let holding = 0
    const cross = (first: number, second: number) => sql.begin(async (tx) => {
      await tx`UPDATE race SET n = n + 1 WHERE id = ${first}`
      if (++holding === 2) resolve()
      await bothHold
      await tx`UPDATE race SET n = n + 1 WHERE id = ${second}`
    })
    const outcomes = await Promise.allSettled([cross(1, 2), cross(2, 1)])
    const lost = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason)
    expect(lost.map(verdict)).toEqual([{ busy: true, unique: false, retry: true }])
    const taken = await failure(() => sql`INSERT INTO race (id) VALUES (1)`)
    expect(verdict(taken)).toEqual({ busy: false, unique: true, retry: true })
  })

  test('a killed backend and a server that does not answer are busy; a plain error is neither', async () => {
    const killed = await failure(() => sql.begin(async (tx) => {
      const [{ pid }] = await tx`SELECT pg_backend_pid() AS pid`
      await sql`SELECT pg_terminate_backend(${pid})`
      await tx`SELECT 1`
    }))
    const nobody = new SQL({ url: 'postgres://root@127.0.0.1:1/test', max: 1, connectionTimeout: 2 })
    const down = await failure(() => nobody`SELECT 1`)
    await nobody.close()
    const plain = await failure(() => sql`SELECT 1 / 0`)
    expect([verdict(killed), verdict(down), verdict(plain)]).toEqual([
      { busy: true, unique: false, retry: false }, { busy: true, unique: false, retry: false }, { busy: false, unique: false, retry: false },
    ])
  })

  test('a transaction that loses a deadlock is run again and lands', async () => {
    const db = pgHandle(sql)
    await sql`UPDATE race SET n = 0`
    const { promise: bothHold, resolve } = Promise.withResolvers<void>()
    let holding = 0
    let runs = 0
    const cross = (first: number, second: number) => db.transaction(async (tx: Tx) => {
      runs++
      const t = (tx as unknown as { sql: SQL }).sql
      await t`UPDATE race SET n = n + 1 WHERE id = ${first}`
      if (++holding === 2) resolve()
      await bothHold
      await t`UPDATE race SET n = n + 1 WHERE id = ${second}`
    })
    await Promise.all([cross(1, 2), cross(2, 1)])
    // Each transaction added one to both rows, once: the deadlock's loser ran a second time.
    expect({ runs, rows: [...await sql`SELECT id, n FROM race ORDER BY id`] }).toEqual({ runs: 3, rows: [{ id: 1, n: 2 }, { id: 2, n: 2 }] })
  })
})
