/**
 * drizzle's `migrate()` reads the last applied migration outside its transaction, so two
 * processes starting at once could both apply the same migration. We hold an exclusive
 * SQLite lock on a small side file for the duration: the OS releases it if a process dies.
 */
import { Database } from 'bun:sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { join } from 'node:path'
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { createPrivateFile } from './file-modes'

const migrationsFolder = join(import.meta.dir, 'migrations')

/** Applies pending migrations to `db`; safe when the api and dispatcher start together. */
export function migrateGuarded(db: BunSQLiteDatabase<Record<string, unknown>>, path: string): void {
  if (path === ':memory:') return migrate(db, { migrationsFolder })
  createPrivateFile(`${path}.migrate-lock`) // 0600, as the database's own files
  const lock = new Database(`${path}.migrate-lock`, { create: true })
  try {
    lock.exec('PRAGMA busy_timeout = 60000')
    lock.exec('BEGIN EXCLUSIVE')
    try {
      migrate(db, { migrationsFolder })
    } finally {
      lock.exec('COMMIT')
    }
  } finally {
    lock.close()
  }
}
