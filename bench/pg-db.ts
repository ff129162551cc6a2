/**
 * PostgreSQL for the benches that print a PostgreSQL figure beside the SQLite one when
 * DATABASE_URL is set (bench/publish.ts, bench/versions.ts, bench/dispatch.ts): a fresh database
 * `bench_<what>_<random>` on DATABASE_URL's server, migrated and filled by copying a SQLite file
 * over with `cli copy-to-postgres` (db/copy; the same database seeds every bench the same way), then dropped.
 */
import { SQL } from 'bun'
import { pgClientOptions } from '../db/pg/client'
import { pgHandle, type PgHandle } from '../db/pg/handle'
import { withDatabase } from '../test/pg/harness'

const root = new URL('..', import.meta.url).pathname

/** DATABASE_URL, or undefined: the benches then print their SQLite figures only. */
export const BENCH_DATABASE_URL = process.env.DATABASE_URL || undefined

export interface BenchPg {
  url: string
  name: string
  /** The pool (Bun.sql), as a process running on DATABASE_URL opens it. */
  sql: SQL
  /** `sql` as the handle core/ runs on (db/pg/handle.ts), as `openPostgres` hands it to the api. */
  db: PgHandle
  /** Closes the pool and drops the database, ending any connection still on it. */
  drop: () => Promise<void>
}

/** Runs `fn` on one connection to the server's own database (CREATE/DROP DATABASE cannot run on the target). */
async function admin(serverUrl: string, fn: (sql: SQL) => Promise<unknown>) {
  const sql = new SQL(pgClientOptions(serverUrl, { processName: 'bench admin', poolSize: 1 }))
  try {
    await fn(sql)
  } finally {
    await sql.close()
  }
}

/**
 * A new database on `serverUrl`'s server holding a copy of the SQLite file at `sqlitePath` (closed,
 * its WAL checkpointed). Ctrl-C drops it too; call `drop` at the end (in a `finally`).
 */
export async function benchPgDatabase(serverUrl: string, what: string, sqlitePath: string, poolSize = 10): Promise<BenchPg> {
  const name = `bench_${what}_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
  await admin(serverUrl, (sql) => sql.unsafe(`CREATE DATABASE ${name}`))
  const url = withDatabase(serverUrl, name)
  const dropDb = () => admin(serverUrl, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  const copy = Bun.spawnSync(['bun', 'cli/main.ts', 'copy-to-postgres', '--from', sqlitePath, '--to', url], { cwd: root, env: process.env, stdout: 'ignore' })
  if (copy.exitCode !== 0) {
    await dropDb()
    throw new Error(`copy-to-postgres: ${copy.stderr.toString()}`)
  }
  const sql = new SQL(pgClientOptions(url, { processName: 'bench', poolSize }))
  let dropped = false
  const drop = async () => {
    if (dropped) return
    dropped = true
    await sql.close()
    await dropDb()
  }
  process.on('SIGINT', () => void drop().finally(() => process.exit(130)))
  return { url, name, sql, db: pgHandle(sql), drop }
}
