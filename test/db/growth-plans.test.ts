/**
 * Query plans of the reads whose cost must not grow with a team's size or a document's age
 * (docs/storage-and-growth.md): each is a seek into an index that holds what it asks for.
 */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { LIST_COLLECTION_IDS_SQL, LIST_IDS_SQL } from '../../db/queries/documents'
import { makeTestDir, TEAM } from '../helpers'

const dir = makeTestDir('plans-test-')
const db = openDb(join(dir, 'plans.db'))
afterAll(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

const plan = (sql: string, params: Record<string, unknown>) =>
  (db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all(params as never) as { detail: string }[]).map((r) => r.detail)

test('the list of one collection seeks team, collection and the after id in documents_collection, in keyset order', () => {
  const details = plan(LIST_COLLECTION_IDS_SQL, { team: TEAM, collection: 'pages', after: 'pages/m', limit: 26 })
  // Not `SEARCH documents USING INDEX documents_canonical (team_id=? AND canonical_id>?)` with the collection a row filter:
  // that walks every document of the team ahead of the collection in id order.
  expect(details).toEqual([expect.stringMatching(/^SEARCH documents USING (COVERING )?INDEX documents_collection \(team_id=\? AND collection=\? AND canonical_id>\?\)$/)])
})

test('the whole team list still seeks documents_canonical without a sort', () => {
  const details = plan(LIST_IDS_SQL, { team: TEAM, after: '', limit: 26 })
  expect(details).toEqual([expect.stringMatching(/^SEARCH documents USING INDEX documents_canonical \(team_id=\? AND canonical_id>\?\)$/)])
})
