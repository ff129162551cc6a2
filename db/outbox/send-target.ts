/** What a send needs of its webhook, read as the send goes out. */
import type { Database } from 'bun:sqlite'
import type { WebhookRow } from '../schema'

export interface SendTarget {
  provider: WebhookRow['provider']
  target: string
  secret: string
  options: Record<string, unknown>
}

/** Webhook `id`'s provider, target, secret and options; null when it was deleted. */
export function loadSendTarget(client: Database, id: string): SendTarget | null {
  const found = client.query('SELECT provider, target, secret, options FROM webhooks WHERE id = ?').get(id) as
    | { provider: WebhookRow['provider']; target: string; secret: string; options: string }
    | null
  return found && { ...found, options: JSON.parse(found.options) as Record<string, unknown> }
}
