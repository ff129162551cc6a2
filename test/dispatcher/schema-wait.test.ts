/**
 * The compiled dispatcher never migrates (dispatcher/schema-wait.ts): it waits for the api. A
 * wait that goes on (no api, or a DATABASE_PATH that differs from the api's) is warned about,
 * naming the path, instead of one info line and silence.
 */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { waitForSchema } from '../../dispatcher/schema-wait'
import { makeTestDir, waitFor } from '../helpers'

const dir = makeTestDir('schema-wait-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a long wait for the migration warns, naming DATABASE_PATH, again later, and ends once the api has migrated', async () => {
  const path = join(dir, 'content.db')
  const db = openDb(path, { migrate: false })
  const lines: { level: string; msg: string; o: Record<string, unknown> }[] = []
  const log = {
    info: (o: object, msg: string) => lines.push({ level: 'info', msg, o: o as Record<string, unknown> }),
    warn: (o: object, msg: string) => lines.push({ level: 'warn', msg, o: o as Record<string, unknown> }),
  }
  let done = false
  const waiting = waitForSchema(db, log, { where: { databasePath: path }, pollMs: 10, warnAfterMs: 100, warnEveryMs: 200 }).then(() => (done = true))
  const warnings = await waitFor(() => { const w = lines.filter((l) => l.level === 'warn'); return w.length >= 2 ? w : null }, 5000, 'two warnings')
  expect(done).toBe(false)
  // Not one per poll (every 10 ms): after 100 ms, then 200 ms later.
  expect(warnings[0]!.o.waitedMs).toBeGreaterThanOrEqual(100)
  expect((warnings[1]!.o.waitedMs as number) - (warnings[0]!.o.waitedMs as number)).toBeGreaterThanOrEqual(150)
  expect(warnings[0]).toEqual({
    level: 'warn', msg: 'still waiting for the api to migrate the database: is the api running, with the same DATABASE_PATH?',
    o: { wanted: expect.any(Number), applied: 0, databasePath: path, waitedMs: expect.any(Number) },
  })
  expect(lines.filter((l) => l.level === 'info').map((l) => l.msg)).toEqual(['waiting for the api to migrate the database'])
  // The api migrates the same file (its own connection): the wait ends.
  openDb(path).$client.close()
  await waiting
  expect(done).toBe(true)
  db.$client.close()
})

test('a database migrated past what the binary was built with (the api upgraded, the binary not) is warned about once, naming the path', async () => {
  const path = join(dir, 'newer.db')
  const db = openDb(path)
  // A migration this build does not know, as a newer api would have applied it.
  db.$client.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-api', 9999999999999)")
  const lines: { level: string; msg: string; o: Record<string, unknown> }[] = []
  const log = {
    info: (o: object, msg: string) => lines.push({ level: 'info', msg, o: o as Record<string, unknown> }),
    warn: (o: object, msg: string) => lines.push({ level: 'warn', msg, o: o as Record<string, unknown> }),
  }
  await waitForSchema(db, log, { where: { databasePath: path }, pollMs: 10 })
  expect(lines).toEqual([{
    level: 'warn',
    msg: 'the database was migrated by a newer api than this dispatcher was built from: rebuild and reinstall the dispatcher binary (docs/operations.md#upgrading)',
    o: { wanted: expect.any(Number), applied: (lines[0]?.o.wanted as number) + 1, databasePath: path },
  }])
  // At the schema it was built with: nothing said.
  const same = openDb(join(dir, 'same.db'))
  const quiet: unknown[] = []
  await waitForSchema(same, { info: (o) => quiet.push(o), warn: (o) => quiet.push(o) }, { where: { databasePath: 'same.db' }, pollMs: 10 })
  expect(quiet).toEqual([])
  db.$client.close()
  same.$client.close()
})
