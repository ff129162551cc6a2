/**
 * PATCH across processes: several api processes on one database (the SQLite file, or on the
 * PostgreSQL pass one PostgreSQL database) patch the drafts of the same documents at once, each
 * draft absent at first (so the first PATCH creates it from the canonical). Every PATCH answered
 * 200 must be in the final draft: no lost update.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { createTestContext, runWorkers, TEAM, type TestContext } from '../helpers'
import { processEnv } from '../process-db'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

const WORKERS = 4
const DOCS = 150

test('concurrent PATCHes of a draft from several processes: every 200 is in the final draft', async () => {
  for (let i = 0; i < DOCS; i++) {
    expect((await ctx.call('POST', `/content/${TEAM}`, { body: { id: `pages/pr${i}`, contentType: 'page', fields: { parent: null }, locales: { en: { title: 'T', slug: `pr${i}` } } } })).status).toBe(200)
  }
  const startAt = Date.now() + 2000
  const { exitCodes, results: outcomes } = await runWorkers(join(import.meta.dir, 'patch-race-worker.ts'), WORKERS, (w) => [ctx.path, String(DOCS), String(w), String(startAt)], processEnv(ctx))
  expect(exitCodes).toEqual(Array(WORKERS).fill(0))
  expect(outcomes).toHaveLength(WORKERS * DOCS)
  // Each PATCH either lands (200) or is refused as a conflict (409); none may vanish.
  expect(outcomes.filter((o) => o.status !== 200 && o.status !== 409)).toEqual([])
  const missing: string[] = []
  for (let i = 0; i < DOCS; i++) {
    const draft = (await ctx.call('GET', `/content/${TEAM}?id=pages/pr${i}/draft`)).body
    for (const o of outcomes.filter((o) => o.id === `pages/pr${i}/draft` && o.status === 200)) if (!(o.field in draft.fields)) missing.push(`${o.id} ${o.field}`)
  }
  expect(missing).toEqual([])
}, 60_000)
