/**
 * The outbox store a test's dispatcher sends through: the default (the SQLite outbox of `db`) on
 * SQLite; on the PostgreSQL pass the PgOutboxStore on the context's pool, as dispatcher/main.ts
 * passes it. Spread into createDispatcher's deps.
 */
import type { Db } from '../../db/client'
import { PgOutboxStore } from '../../db/pg/outbox/store'

export function storeFor(db: Db): { store?: PgOutboxStore } {
  return db.engine === 'pg' ? { store: new PgOutboxStore(db.sql) } : {}
}
