import { afterAll, expect, test } from 'bun:test'
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { openDb } from '../../db/client'
import * as schema from '../../db/schema'
import { claimDue } from '../../db/outbox/claim'
import { LIVE_CHILDREN_SQL } from '../../db/queries/events'
import { makeTestDir, TEAM } from '../helpers'

const dir = makeTestDir('migrate-test-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('four processes opening a fresh database at once apply each migration exactly once', async () => {
  const path = join(dir, 'race.db')
  const script = `import { openDb } from '${join(import.meta.dir, '../../db/client')}'; openDb(process.env.DATABASE_PATH!).$client.close()`
  const procs = Array.from({ length: 4 }, () => Bun.spawn(['bun', '-e', script], { env: { ...process.env, DATABASE_PATH: path }, stderr: 'pipe' }))
  const codes = await Promise.all(procs.map((p) => p.exited))
  expect(codes).toEqual([0, 0, 0, 0])
  const db = new Database(path)
  const applied = db.query('SELECT hash, count(*) AS n FROM __drizzle_migrations GROUP BY hash').all() as { n: number }[]
  expect(applied.length).toBeGreaterThan(0)
  expect(applied.every((r) => r.n === 1)).toBe(true)
  expect(db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
  db.close()
})

test('0002 moves the payloads of existing outbox rows to outbox_events; the claim still sends the same bytes', async () => {
  // A database at 0001 (payload on each outbox row) holding pending rows, as an upgrade finds it.
  const old = join(dir, 'old-migrations')
  cpSync(join(import.meta.dir, '../../db/migrations'), old, { recursive: true })
  const journal = JSON.parse(readFileSync(join(old, 'meta/_journal.json'), 'utf8'))
  journal.entries = journal.entries.filter((e: { tag: string }) => e.tag <= '0001')
  writeFileSync(join(old, 'meta/_journal.json'), JSON.stringify(journal))
  const path = join(dir, 'upgrade.db')
  const before = drizzle({ client: new Database(path, { create: true, strict: true }), schema })
  migrate(before, { migrationsFolder: old })
  // The team row by hand: the seed of today writes columns that later migrations add.
  const raw = before.$client
  raw.query(`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES (?, 'main', '["en"]', 'en', 'x')`).run(TEAM)
  raw.query(`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, options, created_at, updated_at)
    VALUES (?, ?, 'w', 'custom', 'http://127.0.0.1:9/h', '["content.published"]', 's', '{}', 'x', 'x')`).run('wh-a', TEAM)
  raw.query(`INSERT INTO webhooks (id, team_id, label, provider, target, events, secret, options, created_at, updated_at)
    VALUES (?, ?, 'w', 'custom', 'http://127.0.0.1:9/h', '["content.published"]', 's', '{}', 'x', 'x')`).run('wh-b', TEAM)
  const insert = raw.query(`INSERT INTO outbox (event_id, webhook_id, team_id, event_type, payload, status, next_attempt_at, created_at, updated_at)
    VALUES (?, ?, ?, 'content.published', ?, ?, 1000, 1000, 1000)`)
  // e-1 goes to two webhooks (one row each, the same bytes); e-2 was delivered already.
  insert.run('e-1', 'wh-a', TEAM, '{"eventId":"e-1","n":1}', 'pending')
  insert.run('e-1', 'wh-b', TEAM, '{"eventId":"e-1","n":1}', 'pending')
  insert.run('e-2', 'wh-a', TEAM, '{"eventId":"e-2","n":2}', 'delivered')
  raw.close()

  const db = openDb(path)
  try {
    expect(db.$client.query('SELECT event_id, payload FROM outbox_events ORDER BY event_id').all()).toEqual([
      { event_id: 'e-1', payload: '{"eventId":"e-1","n":1}' },
      { event_id: 'e-2', payload: '{"eventId":"e-2","n":2}' },
    ])
    const columns = (db.$client.query('PRAGMA table_info(outbox)').all() as { name: string }[]).map((c) => c.name)
    expect(columns).not.toContain('payload')
    expect(db.$client.query(`SELECT name FROM sqlite_master WHERE name = 'outbox_due'`).all()).toEqual([])
    const claimed = claimDue(db.$client, { now: 2000, leaseMs: 5000, limit: 10 })
    expect(claimed.map((r) => ({ eventId: r.eventId, webhookId: r.webhookId, payload: r.payload, status: r.status }))).toEqual([
      { eventId: 'e-1', webhookId: 'wh-a', payload: '{"eventId":"e-1","n":1}', status: 'pending' },
      { eventId: 'e-1', webhookId: 'wh-b', payload: '{"eventId":"e-1","n":1}', status: 'pending' },
    ])
  } finally {
    db.$client.close()
  }
})

test('0004: the pages below a page are found through the documents_page_parent index, not a scan of the team', () => {
  const db = openDb(join(dir, 'plan.db'))
  const plan = db.$client.query(`EXPLAIN QUERY PLAN ${LIVE_CHILDREN_SQL}`).all(TEAM, 'pages/home', 10) as { detail: string }[]
  expect(plan.map((r) => r.detail)).toContainEqual(expect.stringContaining('USING INDEX documents_page_parent'))
  db.$client.close()
})
