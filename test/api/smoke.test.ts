import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, TEAM, type TestContext } from '../helpers'

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

test('health answers without auth', async () => {
  const res = await ctx.call('GET', '/health', { token: null })
  expect(res).toMatchObject({ status: 200, body: { status: 'ok' } })
})

test('seeded published page has one version', async () => {
  const res = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/home`)
  expect(res.status).toBe(200)
  expect(res.body.rows).toHaveLength(1)
})
