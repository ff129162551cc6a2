/**
 * The documents list in Chromium against the real api: each row's title (the default language's)
 * with its id, the filter by id or title, and the "Scheduled" badge of a scheduled publish,
 * which a reload still shows (it comes from the list endpoint, not from the page's memory).
 */
import { expect, test } from 'bun:test'
import { TEAM, TOKENS } from '../helpers'
import { signIn, stackFixture } from './harness'

const fx = stackFixture()

test.skipIf(!!fx.missing)('rows show their title and id; the filter matches either; a scheduled publish has its badge, also after a reload', async () => {
  const post = (id: string, title: string) => fx.s.ctx.call('POST', `/content/${TEAM}`, { body: { id, contentType: 'page', fields: { parent: null }, locales: { en: { title, slug: id.split('/')[1] } } } })
  expect((await post('pages/spring-sale', 'Spring sale')).status).toBe(200)
  expect((await post('pages/contact', 'Write to us')).status).toBe(200)
  const publishAt = new Date(Date.now() + 3 * 86_400_000).toISOString()
  expect((await fx.s.ctx.call('POST', `/content/schedule/${TEAM}`, { body: { id: 'pages/spring-sale', publishAt } })).status).toBe(201)

  const page = await fx.s.page()
  await signIn(page, fx.s.base, TOKENS.editor)
  await page.goto(`${fx.s.base}/app/t/${TEAM}`)
  const table = page.getByRole('table', { name: /Documents of team/ })
  const row = (text: string) => table.getByRole('row').filter({ hasText: text })
  await row('Spring sale').waitFor()
  expect(await row('Spring sale').textContent()).toContain('pages/spring-sale')
  expect(await row('Home').getByRole('link', { name: 'Home' }).count()).toBe(1)
  const badge = row('Spring sale').locator('.badge-scheduled')
  expect(await badge.textContent()).toMatch(/^Scheduled: /)
  expect(await badge.locator('time').getAttribute('datetime')).toBe(publishAt)
  expect(await row('Write to us').locator('.badge-scheduled').count()).toBe(0)

  const filter = page.getByLabel('Filter by id or title')
  await filter.fill('write to')
  expect(await table.locator('tbody tr').count()).toBe(1)
  expect(await table.locator('tbody tr').textContent()).toContain('pages/contact')
  await filter.fill('spring-')
  expect(await table.locator('tbody tr').textContent()).toContain('Spring sale')
  await filter.fill('nothing like it')
  await page.getByText('No documents with "nothing like it" in their id or title among the 3 loaded.').waitFor()

  // The badge is the api's: after a reload it is still there, and gone once unscheduled.
  await page.reload()
  await row('Spring sale').locator('.badge-scheduled').waitFor()
  await fx.s.ctx.call('POST', `/content/unschedule/${TEAM}`, { body: { ids: ['pages/spring-sale'] } })
  await page.reload()
  await row('Spring sale').waitFor()
  expect(await row('Spring sale').locator('.badge-scheduled').count()).toBe(0)
  await page.getByRole('link', { name: 'Spring sale' }).click()
  await page.getByLabel('title (en)').waitFor()
  expect(await page.getByLabel('title (en)').inputValue()).toBe('Spring sale')
  await page.close()
}, 60_000)
