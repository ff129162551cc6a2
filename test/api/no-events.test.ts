import { row } from '../rows'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, TEAM, type TestContext } from '../helpers'

// spec.md: "The version endpoints emit no events"; restore "Restoring is never publishing".
let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
  const hook = await ctx.call('POST', `/teams/${TEAM}/webhooks`, {
    body: { label: 'all', provider: 'custom', target: 'https://hooks.example.com/x', events: ['content.published', 'content.unpublished', 'site.changed'] },
  })
  expect(hook.status).toBe(201)
})
afterAll(() => ctx.close())

const outboxCount = async () => ((await row(ctx.db, 'SELECT count(*) AS n FROM outbox')) as { n: number }).n

test('publishing writes one event; listing, previewing and restoring versions write none', async () => {
  await ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/ev/draft', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'A', slug: 'ev' } } } })
  const before = (await outboxCount())
  const publish = await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: ['pages/ev'] } })
  expect(publish.body[0].status).toBe(0)
  expect((await outboxCount())).toBe(before + 1)

  const afterPublish = (await outboxCount())
  const list = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/ev`)
  const version = list.body.rows[0].version
  expect((await ctx.call('GET', `/content/version/${TEAM}?id=pages/ev&version=${version}`)).status).toBe(200)
  const restore = await ctx.call('POST', `/content/apply-version/${TEAM}`, { body: { kind: 'revision', documentId: 'pages/ev', version, locales: ['en'] } })
  expect(restore.body[0].status).toBe(0)
  const snapshot = await ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: 'pages/ev' } })
  const applied = await ctx.call('POST', `/content/apply-snapshot/${TEAM}`, { body: { snapshotId: snapshot.body.id } })
  expect(applied.body[0].status).toBe(0)
  expect((await outboxCount())).toBe(afterPublish)
})
