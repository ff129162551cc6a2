/** Whether an outbox row is still there (it goes with its webhook); the twin of db/outbox/row-exists.ts. */
import type { SQL } from 'bun'

/** True while outbox row `seq` exists. */
export async function outboxRowExists(sql: SQL, seq: number): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM outbox WHERE seq = ${seq}`
  return rows.length > 0
}
