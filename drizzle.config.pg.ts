import { defineConfig } from 'drizzle-kit'

/** PostgreSQL migrations (docs/postgresql.md), generated beside SQLite's from db/pg/schema.ts. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/pg/schema.ts',
  out: './db/migrations/pg',
})
