/**
 * The SQLite side of a twin test: a fresh migrated SQLite file with team `acme`, on which the same
 * writes run as on a fresh PostgreSQL database, so that the two can be compared result by result.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb, type SqliteDb as Db } from '../../../db/client'
import { makeTestDir } from '../../helpers'

export interface SqliteTwin {
  db: Db
  close(): void
}

/** A new SQLite database file holding team `acme` (as test/db/pg/outbox/fixtures.ts `seedWebhooks` writes it). */
export function sqliteTwin(): SqliteTwin {
  const dir = makeTestDir('pg-twin-')
  const db = openDb(join(dir, 'content.db'))
  db.$client.query(`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES ('acme', 'main', '["en"]', 'en', '2026-01-01T00:00:00.0000000Z')`).run()
  return {
    db,
    close() {
      db.$client.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
