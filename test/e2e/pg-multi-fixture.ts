/**
 * What the multi-process tests on PostgreSQL share (pg-multi-process, pg-multi-race): one fresh
 * database seeded as test/e2e/api-postgres.test.ts seeds it (testSeed() written to SQLite, copied
 * over by the real `cli copy-to-postgres`), real api processes (api/main.ts) and real dispatchers
 * (dispatcher/main.ts) on it, and an HTTP client for the apis.
 */
import type { SQL } from 'bun'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { seed } from '../../cli/seed'
import { collectOutput, logLine, makeTestDir, spawnApi, testSeed, TOKENS, waitFor } from '../helpers'
import { pgDatabase, type PgTestDatabase } from '../pg/harness'
import { OWNER_LOCK_SPACE } from '../../db/pg/outbox/liveness'
import { root } from './dispatcher-fixture'

/** Each process's pool: 5 processes at 4 share the server with the other test files running at once. */
const POOL = '4'

/** A fresh database holding testSeed(), copied from SQLite by the real command. */
export async function seededPg(): Promise<PgTestDatabase> {
  const dir = makeTestDir('pg-multi-')
  try {
    const seeded = join(dir, 'seeded.db')
    const db = openDb(seeded)
    await seed(db, null, testSeed())
    db.$client.close()
    const pg = await pgDatabase()
    const copy = Bun.spawnSync(['bun', 'cli/main.ts', 'copy-to-postgres', '--from', seeded, '--to', pg.url], { cwd: root, env: process.env })
    if (copy.exitCode !== 0) throw new Error(`copy-to-postgres: ${copy.stderr.toString()}`)
    return pg
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `count` api processes on `url`; answers each one's base URL with it. */
export async function startApis(url: string, count: number) {
  const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DATABASE_PATH: '/nonexistent/never.db', DATABASE_URL: url, DATABASE_POOL_SIZE: POOL }
  const apis = Array.from({ length: count }, () => spawnApi(env))
  const bases = (await Promise.all(apis.map((a) => a.listening()))).map(({ port }) => `http://127.0.0.1:${port}`)
  return { apis, bases }
}

export interface Dispatcher {
  proc: ReturnType<typeof Bun.spawn>
  out: { text: string; done: Promise<void> }
  err: { text: string; done: Promise<void> }
  /** Its owner id (the prefix of its lease tokens), from its `proof of life held` line; undefined before. */
  owner: () => string | undefined
}

/** A real dispatcher/main.ts on `url`, LOG_LEVEL=info; `env` over the defaults. */
export function spawnDispatcher(url: string, env: Record<string, string> = {}): Dispatcher {
  const proc = Bun.spawn(['bun', 'dispatcher/main.ts'], {
    cwd: root, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe',
    env: {
      ...process.env, DATABASE_PATH: '/nonexistent/never.db', DATABASE_URL: url, DATABASE_POOL_SIZE: POOL, LOG_LEVEL: 'info',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', SITE_CHANGE_QUIET_MS: '300', SITE_CHANGE_MAX_HOLD_MS: '60000', ...env,
    },
  })
  const out = collectOutput(proc.stdout)
  const err = collectOutput(proc.stderr)
  return { proc, out, err, owner: () => logLine(out.text, 'proof of life held')?.owner }
}

/** Starts `count` dispatchers and waits for each to hold its proof of life. */
export async function startDispatchers(url: string, count: number, env: Record<string, string> = {}): Promise<Dispatcher[]> {
  const started = Array.from({ length: count }, () => spawnDispatcher(url, env))
  await waitFor(() => started.every((d) => d.owner()), 30_000, `${count} dispatchers holding their proof of life`)
  return started
}

/**
 * How many dispatcher proofs of life (session advisory locks in OWNER_LOCK_SPACE) are held on the
 * database `sql` is connected to. Advisory locks are per database, and pg_locks lists the whole
 * server's: other test files on the same server hold theirs (test/pg/runner.ts's liveOwners counts them too).
 */
export async function liveOwners(sql: SQL): Promise<number> {
  const [row] = await sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = ${OWNER_LOCK_SPACE}::oid AND objsubid = 2
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
  return row.n
}

/** SIGKILL for whatever still runs. */
export async function killAll(procs: { proc: ReturnType<typeof Bun.spawn> }[]) {
  for (const { proc } of procs) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
  await Promise.all(procs.map(({ proc }) => proc.exited))
}

export interface Answer { status: number; body: any; etag: string | null }

/** One request to the api at `base`; a body that is not JSON comes back as its text. */
export async function call(base: string, method: string, url: string, body?: unknown, opts: { token?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const res = await fetch(base + url, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: `Bearer ${opts.token ?? TOKENS.editor}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
  })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: res.status, body: parsed, etag: res.headers.get('etag') }
}

/** Error lines a process wrote (pino level 50 and up), for a failure message that says what went wrong. */
export function errorLines(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('{')).filter((l) => JSON.parse(l).level >= 50)
}
