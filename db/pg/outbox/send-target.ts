/** What a send needs of its webhook, read as the send goes out; the twin of db/outbox/send-target.ts. */
import type { SQL } from 'bun'
import type { SendTarget } from '../../outbox/send-target'

/** Webhook `id`'s provider, target, secret and options; null when it was deleted. */
export async function loadSendTarget(sql: SQL, id: string): Promise<SendTarget | null> {
  // The options as text, parsed here as on SQLite, rather than by the driver.
  const [found] = await sql`SELECT provider, target, secret, options::text AS options FROM webhooks WHERE id = ${id}`
  return found ? { ...found, options: JSON.parse(found.options) as Record<string, unknown> } : null
}
