import { sqliteOf } from '../../dialect'
import { afterAll, expect, test } from 'bun:test'
import { createTestContext, holdWriteLock, TEAM } from '../../helpers'

// Through createApp over a real file, with a second connection holding the write lock.
const ctx = await createTestContext()
sqliteOf(ctx.db).$client.exec('PRAGMA busy_timeout = 300')
afterAll(() => ctx.close())

test('a write waits for another process\'s lock and goes on when it is released; a read never waits', async () => {
  const lock = holdWriteLock(ctx.path)
  const write = ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/wait', contentType: 'page', locales: { en: { title: 'W', slug: 'wait' } } } })
  const started = Date.now()
  expect((await ctx.call('GET', '/health', { token: null })).status).toBe(200)
  expect(Date.now() - started).toBeLessThan(250)
  setTimeout(() => lock.release('COMMIT'), 100)
  expect((await write).status).toBe(200)
})

test('a write that waits past the busy timeout is 503 busy with Retry-After', async () => {
  const lock = holdWriteLock(ctx.path)
  try {
    const res = await ctx.call('POST', `/content/${TEAM}`, { body: { id: 'pages/late', contentType: 'page', locales: { en: { title: 'L', slug: 'late' } } } })
    expect({ status: res.status, error: res.body.error, retry: res.headers.get('retry-after') }).toEqual({ status: 503, error: 'busy', retry: '1' })
  } finally {
    lock.release()
  }
})
