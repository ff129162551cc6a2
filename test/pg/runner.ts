/**
 * PostgreSQL outbox runners (dispatcher/pg-outbox-runner.ts) as real processes, for the
 * multi-process test (test/e2e/pg-dispatchers.test.ts): spawned on a database URL with the dispatcher's
 * environment, their output collected as it comes.
 */
import type { SQL, Subprocess } from 'bun'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { OWNER_LOCK_SPACE } from '../../db/pg/outbox/liveness'
import { collectOutput, logLine } from '../helpers'

const root = join(import.meta.dir, '../..')

export interface PgRunner {
  proc: Subprocess<'ignore', 'pipe', 'inherit'>
  /** Its stdout so far (pino JSON lines). */
  out: { text: string; done: Promise<void> }
  /** Its owner id, from its `pg outbox runner started` line (LOG_LEVEL=info); undefined before. */
  owner: () => string | undefined
  /** Ends it if it still runs (SIGKILL) and removes its SQLite directory, which a kill -9 leaves behind. */
  cleanup: () => Promise<void>
}

/** Starts one runner on `url`; `env` over the defaults (private targets allowed, LOG_LEVEL=info). */
export function spawnPgRunner(url: string, env: Record<string, string> = {}): PgRunner {
  const proc = Bun.spawn(['bun', 'dispatcher/pg-outbox-runner.ts'], {
    cwd: root, stdin: 'ignore', stdout: 'pipe', stderr: 'inherit',
    env: { ...process.env, DATABASE_URL: url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info', ...env },
  })
  const out = collectOutput(proc.stdout)
  const started = () => logLine(out.text, 'pg outbox runner started')
  const cleanup = async () => {
    proc.kill('SIGKILL')
    await proc.exited
    const dir = started()?.coreDir
    if (dir) rmSync(dir, { recursive: true, force: true })
  }
  return { proc, out, owner: () => started()?.owner, cleanup }
}

/** How many dispatcher proofs of life (session advisory locks in OWNER_LOCK_SPACE) this database holds now (not the whole server: other test files and benches run dispatchers on their own databases at the same time). */
export async function liveOwners(sql: SQL): Promise<number> {
  const [row] = await sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = ${OWNER_LOCK_SPACE}::oid AND objsubid = 2
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
  return row.n
}
