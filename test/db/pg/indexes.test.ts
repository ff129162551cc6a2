/**
 * The PostgreSQL indexes serve the queries they were made for, as on SQLite: a partial or
 * expression index is used only by a query that repeats its terms, so each query shape the store
 * will run is planned here with sequential scans ruled out and must name its index. The last test
 * measures the deep version page: as many buffers as the first page, not more.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { describePg, pgDatabase, type PgTestDatabase } from '../../pg/harness'

let d: PgTestDatabase
let sql: SQL
beforeAll(async () => {
  if (!process.env.TEST_DATABASE_URL) return
  d = await pgDatabase()
  sql = new SQL({ url: d.url, max: 1 })
})
afterAll(async () => {
  await sql?.close()
  await d?.drop()
})

/** The plan of `query` with sequential scans ruled out: only an index that fits the query avoids one. */
async function plan(query: string): Promise<string> {
  return sql.begin(async (tx) => {
    await tx.unsafe('SET LOCAL enable_seqscan = off')
    const rows = await tx.unsafe(`EXPLAIN ${query}`)
    return [...rows].map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n')
  })
}

const SHAPES: [string, string][] = [
  ['revisions_doc_ordinal', `SELECT seq FROM revisions WHERE team_id = 't' AND document_id = 'd' AND ordinal <= 40 ORDER BY ordinal DESC LIMIT 20`],
  ['outbox_webhook_due', `SELECT seq FROM outbox WHERE status = 'pending' AND webhook_id = 'w' AND next_attempt_at <= 100 ORDER BY next_attempt_at, seq LIMIT 10`],
  ['outbox_webhook_seq', `SELECT seq FROM outbox WHERE webhook_id = 'w' ORDER BY seq DESC LIMIT 20`],
  ['documents_collection', `SELECT canonical_id FROM documents WHERE team_id = 't' AND collection = 'posts' AND kind IN ('canonical', 'draft') AND deleted_at IS NULL AND canonical_id > 'a' ORDER BY canonical_id LIMIT 50`],
  ['documents_page_parent', `SELECT id FROM documents WHERE team_id = 't' AND kind = 'canonical' AND ((nul_safe_json(body) -> 'fields') ->> 'parent') = 'p'`],
  ['documents_canonical', `SELECT id FROM documents WHERE team_id = 't' AND canonical_id = 'c'`],
  ['revisions_cv', `SELECT seq FROM revisions WHERE team_id = 't' AND change_vector = 'A:1'`],
  ['schedules_due', `SELECT team_id FROM schedules WHERE publish_at <= 100`],
  ['attempts_outbox', `SELECT id FROM delivery_attempts WHERE outbox_seq IN (1, 2, 3) ORDER BY outbox_seq, id`],
  ['site_changes_team', `SELECT id FROM site_changes WHERE team_id = 't' AND emitted_at IS NULL`],
  ['snapshots_doc', `SELECT id FROM snapshots WHERE team_id = 't' AND document_id = 'd'`],
  ['webhooks_team', `SELECT id FROM webhooks WHERE team_id = 't'`],
]

describePg('PostgreSQL indexes', () => {
  test.each(SHAPES)('%s serves its query', async (index, query) => {
    expect(await plan(query)).toContain(index)
  })

  test('a deep version page reads as many buffers as the first (dense ordinal)', async () => {
    await sql.unsafe(`INSERT INTO teams (id, workspace_id, locales, default_locale, created_at) VALUES ('t', 'w', '["en"]', 'en', '2026-01-01T00:00:00.0000000Z')`)
    await sql.unsafe(`INSERT INTO revisions (team_id, document_id, ordinal, change_vector, body, stamped, created_at)
      SELECT 't', 'doc' || (n % 20), n / 20 + 1, 'A:' || n, '\\x01'::bytea, true, '2026-01-01T00:00:00.0000000Z' FROM generate_series(0, 99999) n`)
    await sql.unsafe('ANALYZE revisions')
    const buffers = async (ordinal: number) => {
      const [row] = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT seq, ordinal FROM revisions
        WHERE team_id = 't' AND document_id = 'doc7' AND ordinal <= ${ordinal} ORDER BY ordinal DESC LIMIT 20`)
      const top = row['QUERY PLAN'][0].Plan
      return { rows: top['Actual Rows'], buffers: top['Shared Hit Blocks'] + top['Shared Read Blocks'] }
    }
    await buffers(5000) // warm
    const first = await buffers(5000)
    const deep = await buffers(40)
    expect({ first: first.rows, deep: deep.rows }).toEqual({ first: 20, deep: 20 })
    expect(deep.buffers).toBeLessThanOrEqual(first.buffers + 1)
  }, 60_000)
})
