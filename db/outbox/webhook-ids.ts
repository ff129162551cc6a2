/** The outbox's webhooks: the ids a claim looks at. */
import type { Database } from 'bun:sqlite'

/** Every webhook's id: the candidates a claim looks at. */
export function listWebhookIds(client: Database): string[] {
  return (client.query('SELECT id FROM webhooks').values() as [string][]).map(([id]) => id)
}
