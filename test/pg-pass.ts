/**
 * Which test files the PostgreSQL pass of `bun run test` runs (scripts/test.ts,
 * docs/getting-started.md "Tests"): every file whose tests build a test context
 * (`createTestContext`, directly or through a fixture it imports) or start processes on a
 * database of test/process-db.ts (`processDatabase`, `processEnv`), except those listed in
 * `PG_PASS_SKIPS` with their reason. A new file that uses the context joins the pass by itself;
 * test/architecture/pg-pass.test.ts fails on a listed file that does not exist or no longer uses it.
 * Files that build no context (pure rules, the PostgreSQL twin tests, which run on both databases
 * in one pass already) run once, in the SQLite pass.
 */
import { Glob } from 'bun'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

export const root = join(import.meta.dir, '..')

type Skip = { why: 'sqlite-only' | 'not-yet' | 'no-database' | 'runs-on-both'; reason: string }

/** Files that use the test context but do not run on the PostgreSQL pass, and why. */
export const PG_PASS_SKIPS: Record<string, Skip> = {
  'test/db/outbox/outbox.test.ts': { why: 'sqlite-only', reason: "the SQLite outbox operations on bun:sqlite (db/pg/outbox's twins have their own tests)" },
  'test/db/revision-compression.test.ts': { why: 'sqlite-only', reason: 'compresses plain-text revision bodies left in the SQLite file' },
  'test/dispatcher/wake.test.ts': { why: 'sqlite-only', reason: "the hint socket in the liveness directory beside the SQLite file (PostgreSQL wakes with LISTEN/NOTIFY: test/db/pg/outbox/wake.test.ts)" },
  'test/dispatcher/loop-slow-store.test.ts': { why: 'sqlite-only', reason: 'wraps the SQLite outbox store to slow it down or gate it; the loop it drives is the same on PostgreSQL' },
  'test/api/http/write-lock.test.ts': { why: 'sqlite-only', reason: 'another connection holds the SQLite write lock; PostgreSQL has no database-wide write lock' },
  'test/e2e/slow-test-send.test.ts': { why: 'no-database', reason: "the api process's idle timeout during a 15 s webhook test send; the database plays no part" },
  'test/e2e/start-ctrl-c.test.ts': { why: 'no-database', reason: "`bun start`'s exit code when Ctrl-C reaches its process group; the database plays no part (test/e2e/start.test.ts runs bun start on both)" },
  'test/e2e/startup.test.ts': { why: 'sqlite-only', reason: 'a DATABASE_PATH that cannot be used, the SQLite write lock held at startup (PostgreSQL startup failures: test/e2e/postgres-startup.test.ts)' },
  'test/e2e/file-modes.test.ts': { why: 'sqlite-only', reason: 'the modes of the SQLite file and of its -wal and -shm files' },
  'test/e2e/dispatcher-postgres.test.ts': { why: 'runs-on-both', reason: 'runs on PostgreSQL in the SQLite pass already (its SQLite seed is copied over)' },
  'test/pg/copy-to-postgres.test.ts': { why: 'runs-on-both', reason: 'copies a SQLite file into PostgreSQL in the SQLite pass already' },
  'test/pg/copy-snapshot.test.ts': { why: 'sqlite-only', reason: 'the source of a copy to PostgreSQL is a SQLite file' },
  'test/web/serving.test.ts': { why: 'no-database', reason: "serves the editor app's files; the database plays no part" },
}

const importsOf = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/from ['"](\.{1,2}\/[^'"]+)['"]/g)]
    .map((m) => resolve(dirname(file), m[1]!))
    .map((p) => (p.endsWith('.ts') ? p : `${p}.ts`))
    .filter((p) => existsSync(p) && p.startsWith(join(root, 'test')))

/** Whether `file` (absolute) builds a test context, itself or through a test module it imports. */
function usesContext(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false
  seen.add(file)
  if (file.endsWith('/test/helpers.ts') || file.endsWith('/test/process-db.ts')) return false
  if (/\b(createTestContext|processDatabase|processEnv)\(/.test(readFileSync(file, 'utf8'))) return true
  return importsOf(file).some((f) => usesContext(f, seen))
}

/** Every test file, relative to the root, sorted. */
export function testFiles(): string[] {
  return [...new Glob('test/**/*.test.ts').scanSync({ cwd: root })].sort()
}

/** The test files that build a test context, relative to the root, sorted. */
export function contextFiles(): string[] {
  return testFiles().filter((f) => usesContext(join(root, f)))
}

/**
 * Test files that start the api, the dispatcher, `bun start` or worker processes (test/e2e,
 * test/dispatcher): each is on the pass (through test/process-db.ts), listed in
 * `PG_PASS_SKIPS`, or a PostgreSQL test of its own (`describePg`, run in the SQLite pass).
 */
export function processFiles(): string[] {
  return testFiles().filter((f) => /^test\/(e2e|dispatcher)\//.test(f) && /\b(spawnApi|runWorkers|Bun\.spawn)\(/.test(readFileSync(join(root, f), 'utf8')))
}

/** Whether `file` (relative) is a PostgreSQL test of its own, run in the SQLite pass (test/pg/harness.ts `describePg`). */
export const runsOnPgAlready = (file: string): boolean => /\bdescribePg\(/.test(readFileSync(join(root, file), 'utf8'))

/** The files of the PostgreSQL pass: the context's, less the skips. */
export function pgPassFiles(): string[] {
  return contextFiles().filter((f) => !(f in PG_PASS_SKIPS))
}
