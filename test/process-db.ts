/**
 * The database of a process-level test (test/e2e: the api, the dispatcher, `bun start` or worker
 * processes started for real), on the engine of the pass (test/dialect.ts): on SQLite a file in
 * a temp folder, on the PostgreSQL pass a fresh database from the migrated template
 * (test/pg/context-db.ts). `env` is what a spawned process needs to reach it: `DATABASE_PATH`,
 * and on PostgreSQL `DATABASE_URL` too, with `DATABASE_PATH` where no file is made. A file that
 * uses `processDatabase` or `processEnv` is on the PostgreSQL pass (test/pg-pass.ts).
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb, pgHandle, type Db } from '../db/client'
import { openPg } from '../db/pg/client'
import { seed } from '../cli/seed'
import { onPg } from './dialect'
import { contextDatabase, openContextDb } from './pg/context-db'
import { makeTestDir, testSeed, type TestContext } from './helpers'

/** What a spawned process needs to open the database of `ctx` (a test context). */
export function processEnv(ctx: Pick<TestContext, 'path' | 'config'>): Record<string, string> {
  return { DATABASE_PATH: ctx.path, ...(ctx.config.databaseUrl ? { DATABASE_URL: ctx.config.databaseUrl } : {}) }
}

export interface ProcessDatabase {
  /** A temp folder of the test's own, removed by `close()`. */
  dir: string
  /** The SQLite file; on PostgreSQL a path in `dir` where no file is. */
  path: string
  /** The PostgreSQL database's URL, or null on SQLite. */
  url: string | null
  /** `DATABASE_PATH` (and on PostgreSQL `DATABASE_URL`) for the processes a test starts. */
  env: Record<string, string>
  /** This test process's own handle on it, for arranging and reading rows (test/rows.ts). */
  db: Db
  /** Closes the handle (on PostgreSQL: ends the pool and drops the database) and removes `dir`. */
  close(): Promise<void>
}

/**
 * A new database for processes to share, seeded by cli/seed.ts with `seed` (testSeed() unless
 * given; `null` leaves it empty but migrated, as `bun start` finds a new file after its api ran).
 */
export async function processDatabase(opts: { seed?: unknown; prefix?: string } = {}): Promise<ProcessDatabase> {
  const dir = makeTestDir(opts.prefix ?? 'process-db-')
  const path = join(dir, 'content.db')
  const pg = onPg ? await contextDatabase() : undefined
  const { db, close } = openContextDb(path, pg, 2)
  if (opts.seed !== null) await seed(db, null, opts.seed ?? testSeed())
  return {
    dir, path, db, url: pg?.url ?? null,
    env: { DATABASE_PATH: path, ...(pg ? { DATABASE_URL: pg.url } : {}) },
    async close() {
      try {
        await close()
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/**
 * The database a worker process (test/e2e/*-worker.ts) opens from its environment: PostgreSQL
 * when `DATABASE_URL` is set (processEnv or ProcessDatabase.env passed on), else the SQLite file.
 */
export function openWorkerDb(path: string): Db {
  const url = process.env.DATABASE_URL
  return url ? pgHandle(openPg(url, { processName: 'test worker', poolSize: 4 }).$client) : openDb(path)
}
