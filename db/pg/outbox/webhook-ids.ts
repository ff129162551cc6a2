/** The outbox's webhooks on PostgreSQL: the ids a claim looks at (twin of db/outbox/webhook-ids.ts). */
import type { SQL } from 'bun'

/** Every webhook's id, in id order: the candidates a claim looks at. */
export async function listWebhookIds(sql: SQL): Promise<string[]> {
  const rows: { id: string }[] = await sql`SELECT id FROM webhooks ORDER BY id`
  return rows.map((r) => r.id)
}
