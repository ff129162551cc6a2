/**
 * The PostgreSQL database behind a test context on the PostgreSQL pass (TEST_DIALECT=pg): a fresh
 * database per context, made with CREATE DATABASE ... TEMPLATE from a migrated template (about
 * 50 ms, against about 250 ms to migrate each time on the development machine), dropped by
 * `drop()`. The template is named by a hash of the migrations, built under another name and
 * renamed when done, so every run and every worktree on the server shares it safely and a new
 * migration makes a new one. Context databases are named `t_<TEST_PG_RUN>_...`: scripts/test.ts
 * drops whatever a run left behind (a file that did not await `ctx.close()`).
 */
import { SQL } from 'bun'
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { openDb, pgHandle, type Db } from '../../db/client'
import { openPg, pgClientOptions } from '../../db/pg/client'
import { migratePg, pgMigrationsFolder } from '../../db/pg/migrate'
import { TEST_DATABASE_URL, withDatabase } from './harness'

/** This run's mark in the names of its databases (scripts/test.ts sets it; lower-case letters and digits). */
export const PG_RUN = (process.env.TEST_PG_RUN ?? 'adhoc').toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 20) || 'adhoc'

let template: Promise<string> | undefined

/** The migrated template's name, built once per migration set on the server. */
export function pgTemplate(): Promise<string> {
  template ??= ensureTemplate()
  return template
}

function migrationsHash(): string {
  const h = createHash('sha256')
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, entry.name)
      if (entry.isDirectory()) walk(p)
      else h.update(entry.name).update(readFileSync(p))
    }
  }
  walk(pgMigrationsFolder)
  return h.digest('hex').slice(0, 16)
}

async function ensureTemplate(): Promise<string> {
  const name = `t_template_${migrationsHash()}`
  if (await databaseExists(name)) return name
  const building = `t_building_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
  await admin(`CREATE DATABASE ${building}`)
  try {
    await migratePg(withDatabase(TEST_DATABASE_URL!, building), { processName: 'test template' })
    // Another run may have published the same template meanwhile: then ours goes.
    await admin(`ALTER DATABASE ${building} RENAME TO ${name}`)
  } catch (e) {
    await admin(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`)
    if (!(await databaseExists(name))) throw e
  }
  return name
}

async function databaseExists(name: string): Promise<boolean> {
  const rows = await admin('SELECT 1 FROM pg_database WHERE datname = $1', [name])
  return rows.length > 0
}

/** Runs one statement on TEST_DATABASE_URL's own database. */
async function admin(statement: string, params: unknown[] = []): Promise<any[]> {
  const sql = new SQL(pgClientOptions(TEST_DATABASE_URL!, { processName: 'test admin', poolSize: 1 }))
  try {
    return [...(await sql.unsafe(statement, params))]
  } finally {
    await sql.close()
  }
}

export interface ContextDatabase {
  url: string
  name: string
  drop(): Promise<void>
}

/** A new database from the template, on TEST_DATABASE_URL's server. */
export async function contextDatabase(): Promise<ContextDatabase> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DIALECT=pg needs TEST_DATABASE_URL (e.g. postgres://root@127.0.0.1:5432/test)')
  const from = await pgTemplate()
  const name = `t_${PG_RUN}_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
  // CREATE DATABASE fails while another session is connected to the template; none is but for a moment.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin(`CREATE DATABASE ${name} TEMPLATE ${from}`)
      break
    } catch (e) {
      if (attempt >= 20 || !String((e as Error).message).includes('being accessed by other users')) throw e
      await Bun.sleep(100)
    }
  }
  return { url: withDatabase(TEST_DATABASE_URL, name), name, drop: async () => void (await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) }
}

/** Drops every database a run named `run` left behind; answers how many. */
export async function dropRunDatabases(run: string): Promise<number> {
  const rows = await admin(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`t\\_${run}\\_%`])
  for (const { datname } of rows) await admin(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`)
  return rows.length
}

/**
 * The handle a test opens on its database: the PostgreSQL one (`pg`, a pool of `poolSize`) on the
 * PostgreSQL pass, else the SQLite file at `path`. `close()` closes it, and on PostgreSQL drops the
 * database too; a second call does nothing.
 */
export function openContextDb(path: string, pg: ContextDatabase | undefined, poolSize?: number): { db: Db; close: () => Promise<void> } {
  const db: Db = pg ? pgHandle(openPg(pg.url, { processName: 'test', poolSize }).$client) : openDb(path)
  let closed = false
  return {
    db,
    async close() {
      if (closed) return
      closed = true
      if (db.engine === 'sqlite') return db.$client.close()
      await db.sql.close()
      await pg!.drop()
    },
  }
}
