/**
 * Counters kept in the database (table `metric_counters`): what the dispatcher, which serves no
 * /metrics, counts for the api to show (core/metrics.ts).
 */
import { eq, sql } from 'drizzle-orm'
import { useClient, type SqliteConn as Conn } from '../client'
import { byDialect } from '../dialect'
import * as pg from '../pg/queries/metrics'
import { metricCounters } from '../schema'

/** Adds one to counter `name{outcome}`, inside the caller's transaction when `conn` is one. */
async function incrementCounterOnSqlite(conn: Conn, name: string, outcome: string): Promise<void> {
  return await useClient(conn, () => {
    conn.insert(metricCounters).values({ name, outcome, value: 1 })
      .onConflictDoUpdate({ target: [metricCounters.name, metricCounters.outcome], set: { value: sql`${metricCounters.value} + 1` } })
      .run()
  })
}

/** The counts of `name` by outcome (outcomes never counted are absent). */
async function countersOfOnSqlite(conn: Conn, name: string): Promise<{ outcome: string; value: number }[]> {
  return await useClient(conn, () => conn.select({ outcome: metricCounters.outcome, value: metricCounters.value }).from(metricCounters)
    .where(eq(metricCounters.name, name)).all())
}

export const incrementCounter = byDialect(incrementCounterOnSqlite, pg.incrementCounter)
export const countersOf = byDialect(countersOfOnSqlite, pg.countersOf)
