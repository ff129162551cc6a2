/**
 * The dispatcher's WAL checkpoints on a worker thread with its own connection (started by
 * dispatcher/main.ts). A PASSIVE checkpoint (db/client.ts `checkpoint()`) copies every page
 * changed since the last one back into the database file and syncs it: tens of milliseconds
 * under load. On the sending thread that stalled every send in flight; here it runs beside them.
 * It blocks neither readers nor writers, so api commits still never pay for copying the WAL.
 */
import { checkpoint, openDb, type SqliteDb as Db } from '../db/client'

declare const self: Worker

export interface CheckpointerStart {
  path: string
  everyMs: number
}

self.onmessage = ({ data }: MessageEvent<CheckpointerStart>) => {
  let db: Db | null = null
  const run = () => {
    try {
      // The same connection settings as the main thread's; the main thread migrates (or waits).
      db ??= openDb(data.path, { migrate: false })
      checkpoint(db)
    } catch (err) {
      // Told to the main thread, which logs it; the next interval tries again. Meanwhile the
      // WAL only grows up to SQLite's automatic checkpoint (db/client.ts), nothing is lost.
      postMessage({ error: String((err as Error).message ?? err) })
    }
  }
  run()
  setInterval(run, data.everyMs)
}
