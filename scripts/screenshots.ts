/**
 * `bun run screenshots`: the editor app's screens at 1280 and 390 pixels wide, taken in
 * Chromium (playwright-core) against the real api and dispatcher over a fresh copy of the demo
 * data, into docs/images/. Needs a Chromium (/usr/bin/chromium or CHROMIUM_PATH).
 */
import { mkdirSync } from 'node:fs'
import type { Page } from 'playwright-core'
import demo from '../db/seed/demo.json'
import { browserMissing, signIn, startStack } from '../test/browser/harness'

const OUT = new URL('../docs/images/', import.meta.url).pathname
const TEAM = 'acme'
const ID = 'pages/about'

if (browserMissing()) process.exit(1)
mkdirSync(OUT, { recursive: true })
const s = await startStack({ seed: demo })
try {
  const call = (method: string, path: string, body?: unknown) => s.ctx.call(method, path, { token: 'tok-editor', body })
  // A history worth showing: a few publishes, a snapshot, unpublished edits in de.
  const base = (await call('GET', `/content/${TEAM}?id=${ID}`)).body
  const titles = [['About', 'Über'], ['About us', 'Über uns'], ['About our team', 'Über unser Team']]
  for (const [en, de] of titles) {
    await call('POST', `/content/${TEAM}`, { id: `${ID}/draft`, contentType: 'page', fields: base.fields, locales: { en: { title: en, slug: 'about' }, de: { title: de, slug: 'ueber-uns' } } })
    await call('POST', `/content/publish/${TEAM}`, { ids: [ID] })
  }
  await call('POST', `/content/snapshots/${TEAM}`, { documentId: ID, name: 'Before the rebrand' })
  const withdrawn = (await call('POST', `/content/snapshots/${TEAM}`, { documentId: ID, name: 'Draft for legal review' })).body
  await call('POST', `/content/snapshots/revoke/${TEAM}`, { id: withdrawn.id })
  await call('POST', `/content/${TEAM}`, { id: `${ID}/draft`, contentType: 'page', fields: base.fields, locales: { en: { title: 'About our team', slug: 'about' }, de: { title: 'Wer wir sind', slug: 'wer-wir-sind' }, fr: { title: 'À propos', slug: 'a-propos' } } })
  await call('POST', `/content/${TEAM}`, { id: 'pages/contact/draft', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'Contact', slug: 'contact' } } })
  await call('POST', `/content/archive/${TEAM}`, { ids: ['products/anvil'] })
  await call('POST', `/content/schedule/${TEAM}`, { id: 'pages/contact', publishAt: new Date(Date.now() + 2 * 86_400_000).toISOString() })
  await call('POST', `/teams/${TEAM}/webhooks`, { label: 'Marketing site', provider: 'custom', target: s.rx.url, events: ['content.published', 'content.unpublished'], signatureScheme: 'standard-webhooks' })
  await call('POST', `/teams/${TEAM}/webhooks`, { label: 'Netlify rebuild', provider: 'netlify', target: 'https://api.netlify.com/build_hooks/5f1e2d3c4b5a69788796a5b4', events: ['site.changed'] })

  for (const width of [1280, 390]) {
    const page = await s.page(width)
    const shot = async (name: string) => {
      await page.waitForTimeout(250)
      await page.screenshot({ path: `${OUT}${name}-${width}.png` })
      console.log(`docs/images/${name}-${width}.png`)
    }
    await page.goto(`${s.base}/`)
    await page.getByRole('heading', { name: 'Demo tokens' }).waitFor()
    await shot('sign-in')
    await signIn(page, s.base, 'tok-editor')
    await page.getByText(ID, { exact: true }).waitFor()
    await shot('documents')
    await page.goto(`${s.base}/app/t/${TEAM}/edit?id=${encodeURIComponent(ID)}`)
    await page.getByRole('tab', { name: /^de/ }).click()
    await shot('editor')
    await page.getByRole('button', { name: 'History' }).click()
    const versions = page.getByRole('list', { name: 'Published Versions' }).getByRole('listitem')
    await versions.first().waitFor()
    await shot('history')
    await versions.nth(2).getByRole('button', { name: /^Compare/ }).click()
    await page.locator('table.compare').waitFor()
    await shot('compare')
    await page.keyboard.press('Escape')
    await versions.nth(2).getByRole('button', { name: /^Restore/ }).click()
    const dialog = page.getByRole('dialog', { name: /^Restore/ })
    await dialog.getByLabel('Pick locales').check()
    await dialog.getByRole('checkbox', { name: /^de/ }).check()
    await dialog.locator('table.compare').waitFor()
    await shot('restore')
    await page.goto(`${s.base}/app/t/${TEAM}/webhooks`)
    await page.getByRole('heading', { name: 'Marketing site' }).waitFor()
    await shot('webhooks')
    await page.getByRole('button', { name: 'Edit Marketing site' }).click()
    await page.getByRole('dialog', { name: /^Edit webhook/ }).getByLabel(/^New signing secret/).scrollIntoViewIfNeeded()
    await shot('webhook-edit')
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Recover failed deliveries of Marketing site' }).click()
    await page.getByRole('dialog', { name: /^Recover failed deliveries/ }).getByRole('button', { name: 'Recover failed deliveries' }).click()
    await page.getByText(/Nothing to recover|Queued/).waitFor()
    await shot('webhook-recover')
    await page.close()
  }
} finally {
  await s.stop()
}
