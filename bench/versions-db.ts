/**
 * What the version benches share: a temp database with one team `t` (a `page` type with a
 * localizable title, user `u` signing in with `BENCH_TOKEN`) and a way to give a document many
 * Published Versions.
 */
import { openDb, type SqliteDb as Db } from '../db/client'
import { createMetrics } from '../core/metrics'
import { publishCounted } from '../core/publish/service'
import { saveDoc } from '../db/store'
import { seed } from '../cli/seed'
import { tempDbPath } from './util'

export const BENCH_TOKEN = 'bench-token-1'

/** A new database file named after `name`, seeded with team `t`. */
export async function openVersionsDb(name: string) {
  const path = tempDbPath(name)
  const db = openDb(path)
  const metrics = createMetrics()
  await seed(db, metrics, {
    teams: [{
      id: 't', workspaceId: 'w', locales: ['en', 'de'], defaultLocale: 'en',
      contentTypes: [{ name: 'page', collection: 'pages', fields: [{ name: 'title', localizable: true }] }],
      users: [{ id: 'u', token: BENCH_TOKEN, capabilities: ['EditContent', 'ChangeLiveContent'] }],
    }],
  })
  return { path, db, metrics }
}

/**
 * Gives `id` `n` more Published Versions. Drafts are written through the store (setup only, no
 * activity entries), then published through the real publish, which records each version.
 */
export async function addVersions(db: Db, metrics: ReturnType<typeof createMetrics>, id: string, n: number) {
  for (let i = 0; i < n; i++) {
    const draft = { id: `${id}/draft`, contentType: 'page', fields: {}, locales: { en: { title: `v${i}` }, de: { title: `v${i}` } } }
    await saveDoc(db, { teamId: 't', id: draft.id, canonicalId: id, kind: 'draft', collection: 'pages', body: draft })
    await publishCounted(db, metrics, { teamId: 't', id, stampUserId: 'u', actorUserId: 'u', source: 'api' })
  }
}
