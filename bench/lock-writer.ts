/**
 * Another process's writer, for the benches: commits one small write every 2 ms to `path`
 * (a table of its own) and times how long each waited for the write lock, until the file
 * `stop` exists; then prints `{n, p50, p99, max}` in ms as JSON.
 *   bun bench/lock-writer.ts <database> <stop-file>
 */
import { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'
import { summarize } from './util'

const [path, stop] = process.argv.slice(2) as [string, string]
const db = new Database(path)
db.exec('PRAGMA busy_timeout = 60000')
db.exec('CREATE TABLE IF NOT EXISTS bench_lock_writer (at REAL)')
const insert = db.query('INSERT INTO bench_lock_writer (at) VALUES (?)')
const waits: number[] = []
console.error('ready')
while (!existsSync(stop)) {
  const t = performance.now()
  db.exec('BEGIN IMMEDIATE')
  waits.push(performance.now() - t)
  insert.run(t)
  db.exec('COMMIT')
  await Bun.sleep(2)
}
db.exec('DROP TABLE bench_lock_writer')
db.close()
const s = summarize(waits)
console.log(JSON.stringify({ n: s.n, p50: s.p50, p99: s.p99, max: Math.max(...waits) }))
