/** Counters kept in the database (table `metric_counters`) on PostgreSQL: the async twins of db/queries/metrics.ts. */
import type { SQL } from 'bun'

/** Adds one to counter `name{outcome}`, inside the caller's transaction when `sql` is one (one upsert: atomic either way). */
export async function incrementCounter(sql: SQL, name: string, outcome: string): Promise<void> {
  await sql`INSERT INTO metric_counters (name, outcome, value) VALUES (${name}, ${outcome}, 1)
    ON CONFLICT (name, outcome) DO UPDATE SET value = metric_counters.value + 1`
}

/**
 * The counts of `name` by outcome (outcomes never counted are absent). SQLite reads them through
 * the (name, outcome) key, so in outcome order: said here with ORDER BY. `value` is a bigint,
 * which Bun.sql returns as a string: cast to float8 (exact up to 2^53).
 */
export async function countersOf(sql: SQL, name: string): Promise<{ outcome: string; value: number }[]> {
  return [...(await sql`SELECT outcome, value::float8 AS value FROM metric_counters WHERE name = ${name} ORDER BY outcome`)]
}
