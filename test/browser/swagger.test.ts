/**
 * `/swagger` in Chromium with outside name resolution blocked (the harness's
 * `--host-resolver-rules`): the API reference renders from this api alone, the title drawn by
 * the reference UI itself, and the page asks no other host for anything.
 */
import { expect, test } from 'bun:test'
import { chromiumArgs, stackFixture } from './harness'

const fx = stackFixture()

test.skipIf(!!fx.missing)('the API reference renders with no outside DNS: its title and a route drawn by the UI, every request to this api', async () => {
  expect(chromiumArgs()).toContain('--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1')
  // The rule holds: an outside name does not resolve in this browser.
  const probe = await fx.s.page()
  await expect(probe.goto('http://example.com/')).rejects.toThrow(/ERR_NAME_NOT_RESOLVED/)
  await probe.close()
  const page = await fx.s.page()
  const elsewhere: string[] = []
  page.on('request', (r) => { if (!r.url().startsWith(fx.s.base) && !/^(data|blob|about):/.test(r.url())) elsewhere.push(r.url()) })
  await page.goto(`${fx.s.base}/swagger`)
  // Drawn by Scalar from /swagger/json: the document's title as a heading, and an operation's summary.
  await page.getByRole('heading', { name: 'Content service' }).first().waitFor({ timeout: 30_000 })
  await page.getByText(/List the team's documents/).first().waitFor({ timeout: 30_000 })
  expect(await page.title()).not.toBe('')
  expect(elsewhere).toEqual([])
  await page.close()
}, 60_000)
