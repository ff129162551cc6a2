/**
 * Every operation of db/queries/<file>.ts has its PostgreSQL twin in db/pg/queries/<file>.ts under
 * the same name (and its SQL constants, where they are exported): a query added on one side only
 * fails here. Needs no server.
 */
import { expect, test } from 'bun:test'

const FILES = ['teams', 'users', 'metrics', 'schedules', 'snapshots', 'documents', 'events', 'webhooks']

test.each(FILES)('db/pg/queries/ twins every export of db/queries/%s.ts', async (file) => {
  const lite: Record<string, unknown> = await import(`../../../../db/queries/${file}`)
  const pg: Record<string, unknown> = await import(`../../../../db/pg/queries/${file}`)
  const shape = (m: Record<string, unknown>) => Object.fromEntries(Object.entries(m).map(([name, v]) => [name, typeof v]).sort())
  expect(shape(pg)).toEqual(shape(lite))
  // Every twin is async, as the SQLite operations are.
  for (const [name, v] of Object.entries(pg)) if (typeof v === 'function') expect({ name, kind: v.constructor.name }).toEqual({ name, kind: 'AsyncFunction' })
})
