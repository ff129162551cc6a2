/**
 * The PostgreSQL column types db/pg/schema.ts needs beyond drizzle's own.
 */
import { sql } from 'drizzle-orm'
import { customType } from 'drizzle-orm/pg-core'

/**
 * A `json` column holding a value written with JSON.stringify: PostgreSQL keeps the text as
 * written (key order included, unlike jsonb), so a document reads back as SQLite gives it.
 * drizzle's own `json()` cannot be used over Bun.sql: it passes the stringified text as a
 * parameter that Bun.sql encodes as JSON once more, storing a JSON string (`"{\"a\":1}"`) that
 * `->>` and the page-parent index cannot see into (drizzle-orm 0.45.4, Bun 1.4.5; drizzle-orm
 * issue 4942, fixed only in drizzle v1; Bun issue 28819). Passed as a `text` parameter and cast on
 * the server, the value is stored as itself whichever way Bun later binds strings to `json`
 * parameters; Bun.sql parses `json` on read.
 */
export const jsonText = <T>(name: string) =>
  customType<{ data: T; driverData: unknown }>({
    dataType: () => 'json',
    toDriver: (value) => sql`${JSON.stringify(value)}::text::json`,
    fromDriver: (value) => (typeof value === 'string' ? JSON.parse(value) : value) as T,
  })(name)

/**
 * Bytes, such as an encoded revision body (db/revision-body.ts). Bun.sql reads `bytea` as a
 * Buffer, which is a Uint8Array.
 */
export const bytea = (name: string) =>
  customType<{ data: Uint8Array; driverData: Uint8Array }>({
    dataType: () => 'bytea',
  })(name)
