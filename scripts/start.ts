/**
 * `bun start`: checks the settings, migrates the database and seeds the demo team when it holds
 * no team (contract.md "Runtime"; only here: the api alone never seeds), then runs the api and
 * the dispatcher side by side and stops both on Ctrl-C / SIGTERM. The database is the SQLite file
 * at DATABASE_PATH, or PostgreSQL when DATABASE_URL is set (docs/postgresql.md).
 */
import { resolve } from 'node:path'
import { closeDb, openDbOrExit, type Db } from '../db/client'
import { maskUrl } from '../db/pg/url'
import { seedDemoIfEmpty } from '../cli/seed'
import { loadConfigOrExit } from '../core/config'
import { createLogger } from '../core/log'
import { onStopSignals } from '../core/signals'
import { openPostgres } from '../core/postgres-startup'

const config = loadConfigOrExit('start')
// With DATABASE_URL, PostgreSQL: connected and migrated under its lock here, before either child
// starts (core/postgres-startup.ts); the children get DATABASE_URL from this environment.
const db: Db = config.databaseUrl ? await openPostgres('start', config) : openDbOrExit('start', config.databasePath)
if (await seedDemoIfEmpty(db, null)) {
  createLogger(config.logLevel, 'start').warn(
    config.databaseUrl ? { databaseUrl: maskUrl(config.databaseUrl) } : { databasePath: config.databasePath },
    // Named by where to find them, not by value: no token in a log line (contract.md), public or not.
    'seeded the demo team "acme": its tokens are the public ones the README lists, so use this database for trying things out only',
  )
}
await closeDb(db)

const root = new URL('..', import.meta.url).pathname
// The children run in the project root: a relative DATABASE_PATH (the default `./data/content.db`)
// is passed as the file seeded above, not read again from another directory (an empty database
// with no team, every request 401, when this script was started from elsewhere).
// Each in a session of its own (core/signals.ts): a terminal's Ctrl-C reaches this script only,
// which passes it on once, so a child never sees one Ctrl-C as two. A child whose parent is gone
// (this script killed with SIGKILL) stops on its own: BUN_START_PID names this process to it.
const env = { ...process.env, DATABASE_PATH: resolve(config.databasePath), BUN_START_PID: String(process.pid) }
const procs = ['api/main.ts', 'dispatcher/main.ts'].map((entry) =>
  Bun.spawn(['bun', entry], { cwd: root, stdio: ['inherit', 'inherit', 'inherit'], env, detached: true }),
)

// The first signal stops both cleanly (the dispatcher waits for its sends in flight, each bounded
// by WEBHOOK_TIMEOUT_MS); a second one (core/signals.ts) is passed on too, and each child exits at
// once (what it had in flight is sent again once its lease expires). SIGHUP sent to this script
// alone stops them as SIGTERM does.
let stopping = false
/**
 * This script's exit code is its children's: 0 when both stopped cleanly, else the first failure's
 * (a process killed by a signal counts as 128 + its number). A child stopped on its own by a
 * signal sent to it alone exits 0: that is a clean stop, not a death.
 */
const childrenCode = (codes: number[]) => codes.find((code) => code !== 0) ?? 0
const pass = (signal: NodeJS.Signals) => {
  const forward = signal === 'SIGHUP' ? 'SIGTERM' : signal
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill(forward)
}
onStopSignals({
  stop: async (signal) => {
    pass(signal)
    if (stopping) return // already taking both down (one of them died on its own)
    stopping = true
    process.exit(childrenCode(await Promise.all(procs.map((p) => p.exited))))
  },
  force: pass,
}, ['SIGHUP'])

// If either process ends on its own, take the other down too, so a supervisor sees a failure (the first one's code first).
const first = await Promise.race(procs.map((p) => p.exited))
if (!stopping) {
  stopping = true
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM')
  const codes = await Promise.all(procs.map((p) => p.exited))
  process.exit(childrenCode([first, ...codes]))
}
