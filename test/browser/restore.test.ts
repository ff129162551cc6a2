/**
 * Restore in Chromium against the real api: only `de` of an older version (every other locale
 * checked byte-identical through the API), the 403 path (disabled with the reason), the 409 paths
 * (a conflicting save keeps the typed text; a snapshot revoked mid-restore), revoked and expired
 * snapshots shown as such after a reload, and the team flags.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { TEAM, TOKENS } from '../helpers'
import { browserMissing, signIn, startStack, type Stack } from './harness'

const missing = browserMissing()
let s: Stack
const enc = encodeURIComponent
const ID = 'pages/restore'

beforeAll(async () => {
  if (missing) return
  s = await startStack()
  const v1 = { id: ID, contentType: 'page', fields: { parent: null, sku: 'v1' }, locales: { en: { title: 'One', slug: 'r' }, de: { title: 'Eins', slug: 'r' }, fr: { title: 'Un', slug: 'r' } } }
  await s.ctx.call('POST', `/content/${TEAM}`, { body: v1 })
  await s.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [ID] } })
  const v2 = { ...v1, fields: { parent: null, sku: 'v2' }, locales: { en: { title: 'Two', slug: 'r' }, de: { title: 'Zwei', slug: 'r' }, fr: { title: 'Deux', slug: 'r' } } }
  await s.ctx.call('POST', `/content/${TEAM}`, { body: { ...v2, id: `${ID}/draft` } })
  await s.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [ID] } })
  // Unpublished edits in en and fr that a de-only restore must leave exactly as they are.
  await s.ctx.call('POST', `/content/${TEAM}`, { body: { ...v2, id: `${ID}/draft`, locales: { en: { title: 'Three ✓', slug: 'r' }, de: { title: 'Zwei', slug: 'r' }, fr: { title: 'Trois « x »', slug: 'r' } } } })
}, 60_000)
afterAll(async () => { await s?.stop() })

const openHistory = async (page: Page) => {
  await page.goto(`${s.base}/app/t/${TEAM}/edit?id=${enc(ID)}`)
  await page.getByRole('button', { name: 'History' }).click()
  return page.getByRole('list', { name: 'Published Versions' }).getByRole('listitem')
}

test.skipIf(!!missing)('restore only de of the older version: en and fr stay byte-identical, nothing is published', async () => {
  const before = (await s.ctx.call('GET', `/content/${TEAM}?id=${ID}/draft`)).body
  const liveBefore = (await s.ctx.call('GET', `/content/${TEAM}?id=${ID}`)).text
  const page = await s.page()
  await signIn(page, s.base, TOKENS.editor)
  const versions = await openHistory(page)
  await versions.nth(1).getByRole('button', { name: /^Restore/ }).click()
  const dialog = page.getByRole('dialog', { name: /^Restore/ })
  await dialog.getByText('This source carries').waitFor()
  expect(await dialog.textContent()).toContain('never publishes')
  await dialog.getByLabel('Pick locales').check()
  await dialog.getByRole('checkbox', { name: /^de/ }).check()
  await dialog.getByRole('cell', { name: 'Eins' }).waitFor()
  expect(await dialog.getByRole('cell', { name: 'One' }).count()).toBe(0) // en is not taken: not in the compare
  await dialog.getByRole('button', { name: 'Restore into draft' }).click()
  await dialog.getByText('Restored into the draft. Nothing was published.').waitFor()
  const after = (await s.ctx.call('GET', `/content/${TEAM}?id=${ID}/draft`)).body
  expect(after.locales.de).toEqual({ title: 'Eins', slug: 'r' })
  expect(JSON.stringify(after.locales.en)).toBe(JSON.stringify(before.locales.en))
  expect(JSON.stringify(after.locales.fr)).toBe(JSON.stringify(before.locales.fr))
  expect(after.fields.sku).toBe('v1')
  expect((await s.ctx.call('GET', `/content/${TEAM}?id=${ID}`)).text).toBe(liveBefore)
  await page.close()
}, 60_000)

test.skipIf(!!missing)('403: without ChangeLiveContent the restore is disabled with the reason, preview stays allowed', async () => {
  const page = await s.page()
  await signIn(page, s.base, TOKENS.translator)
  const versions = await openHistory(page)
  const restore = versions.first().getByRole('button', { name: /^Restore/ })
  expect(await restore.isDisabled()).toBe(true)
  expect(await versions.first().textContent()).toContain('needs the ChangeLiveContent capability')
  await versions.first().getByRole('button', { name: /^Preview/ }).click()
  await page.getByRole('cell', { name: 'Zwei' }).first().waitFor()
  // The server's own 403, had the button been bypassed: the batch reason in words.
  const res = await s.ctx.call('POST', `/content/apply-version/${TEAM}`, { token: TOKENS.translator, body: { kind: 'revision', documentId: ID, version: (await s.ctx.call('GET', `/content/versions/${TEAM}?id=${ID}`)).body.rows[0].version } })
  expect(res.status).toBe(403)
  await page.close()
}, 60_000)

test.skipIf(!!missing)('403 from the server: published while the dialog was open, the refusal shows its reason', async () => {
  const OTHER = 'pages/unpublished'
  await s.ctx.call('POST', `/content/${TEAM}`, { body: { id: OTHER, contentType: 'page', fields: { parent: null }, locales: { en: { title: 'Old', slug: 'u' } } } })
  await s.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [OTHER] } })
  await s.ctx.call('POST', `/content/unpublish/${TEAM}`, { body: { ids: [OTHER] } })
  const page = await s.page()
  await signIn(page, s.base, TOKENS.translator)
  await page.goto(`${s.base}/app/t/${TEAM}/edit?id=${enc(OTHER)}`)
  await page.getByRole('button', { name: 'History' }).click()
  const version = page.getByRole('list', { name: 'Published Versions' }).getByRole('listitem').first()
  await version.getByRole('button', { name: /^Restore/ }).click() // not published now: allowed
  const dialog = page.getByRole('dialog', { name: /^Restore/ })
  await dialog.getByText('This source carries').waitFor()
  expect((await s.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [OTHER] } })).body[0].status).toBe(0)
  await dialog.getByRole('button', { name: 'Restore into draft' }).click()
  const alert = dialog.getByRole('alert')
  await alert.waitFor()
  expect(await alert.textContent()).toMatch(/ChangeLiveContent.*\(forbidden, HTTP 403\)/)
  await page.close()
}, 60_000)

test.skipIf(!!missing)('409: a conflicting save says so and keeps the typed text; reloading keeps it too', async () => {
  const page = await s.page()
  await signIn(page, s.base, TOKENS.editor)
  await page.goto(`${s.base}/app/t/${TEAM}/edit?id=${enc(ID)}`)
  await page.getByLabel('title (en)').fill('Typed here, not lost')
  // Someone else saves the draft meanwhile.
  const draft = (await s.ctx.call('GET', `/content/${TEAM}?id=${ID}/draft`)).body
  await s.ctx.call('POST', `/content/${TEAM}`, { body: { id: `${ID}/draft`, contentType: 'page', fields: draft.fields, locales: { ...draft.locales, fr: { title: 'Autre', slug: 'r' } } } })
  await page.getByRole('button', { name: 'Save draft' }).click()
  const alert = page.getByRole('alert')
  await alert.waitFor()
  expect(await alert.textContent()).toContain('409')
  expect(await page.getByLabel('title (en)').inputValue()).toBe('Typed here, not lost')
  await page.getByRole('button', { name: 'Reload the saved draft under my changes' }).click()
  await page.getByRole('tab', { name: /^fr/ }).click()
  await expect(page.getByLabel('title (fr)').inputValue()).resolves.toBe('Autre')
  await page.getByRole('tab', { name: /^en/ }).click()
  expect(await page.getByLabel('title (en)').inputValue()).toBe('Typed here, not lost')
  await page.getByRole('button', { name: 'Save draft' }).click()
  await page.getByText('Draft saved.').waitFor()
  expect((await s.ctx.call('GET', `/content/${TEAM}?id=${ID}/draft`)).body.locales.en.title).toBe('Typed here, not lost')
  await page.close()
}, 60_000)

test.skipIf(!!missing)('409: the draft saved elsewhere while the restore dialog is open is refused with "save pending edits and retry"; re-read and retry restores the same locales over it', async () => {
  const RACE = 'pages/race'
  const doc = (sku: string, en: string, de: string, fr: string) => ({ id: RACE, contentType: 'page', fields: { parent: null, sku }, locales: { en: { title: en, slug: 'x' }, de: { title: de, slug: 'x' }, fr: { title: fr, slug: 'x' } } })
  await s.ctx.call('POST', `/content/${TEAM}`, { body: doc('r1', 'Old', 'Alt', 'Vieux') })
  await s.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [RACE] } })
  await s.ctx.call('POST', `/content/${TEAM}`, { body: { ...doc('r2', 'New', 'Neu', 'Nouveau'), id: `${RACE}/draft` } })
  await s.ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [RACE] } })
  await s.ctx.call('POST', `/content/${TEAM}`, { body: { ...doc('r2', 'Draft', 'Entwurf', 'Brouillon'), id: `${RACE}/draft` } })
  const page = await s.page()
  await signIn(page, s.base, TOKENS.editor)
  await page.goto(`${s.base}/app/t/${TEAM}/edit?id=${enc(RACE)}`)
  await page.getByRole('button', { name: 'History' }).click()
  await page.getByRole('list', { name: 'Published Versions' }).getByRole('listitem').nth(1).getByRole('button', { name: /^Restore/ }).click()
  const dialog = page.getByRole('dialog', { name: /^Restore/ })
  await dialog.getByText('This source carries').waitFor()
  await dialog.getByLabel('Pick locales').check()
  await dialog.getByRole('checkbox', { name: /^de/ }).check()
  await dialog.getByRole('checkbox', { name: /^fr/ }).check()
  // Meanwhile someone saves the draft (a change in en and de).
  const draft = (await s.ctx.call('GET', `/content/${TEAM}?id=${RACE}/draft`)).body
  await s.ctx.call('POST', `/content/${TEAM}`, { body: { id: `${RACE}/draft`, contentType: 'page', fields: draft.fields, locales: { ...draft.locales, en: { title: 'Saved meanwhile', slug: 'x' }, de: { title: 'Inzwischen', slug: 'x' } } } })
  await dialog.getByRole('button', { name: 'Restore into draft' }).click()
  const alert = dialog.getByRole('alert')
  await alert.waitFor()
  expect(await alert.textContent()).toMatch(/Save your pending edits.*retry.*HTTP 409/)
  // Nothing was written: the draft is the one saved meanwhile.
  expect((await s.ctx.call('GET', `/content/${TEAM}?id=${RACE}/draft`)).body.locales.de.title).toBe('Inzwischen')
  await dialog.getByRole('button', { name: 'Re-read and retry with the same locales' }).click()
  await dialog.getByText('Restored into the draft. Nothing was published.').waitFor()
  const after = (await s.ctx.call('GET', `/content/${TEAM}?id=${RACE}/draft`)).body
  expect({ en: after.locales.en.title, de: after.locales.de.title, fr: after.locales.fr.title, sku: after.fields.sku }).toEqual({ en: 'Saved meanwhile', de: 'Alt', fr: 'Vieux', sku: 'r1' })
  expect(await dialog.getByRole('checkbox', { name: /^de/ }).isChecked()).toBe(true)
  expect(await dialog.getByRole('checkbox', { name: /^en/ }).isChecked()).toBe(false)
  await page.close()
}, 60_000)

test.skipIf(!!missing)('409: a snapshot revoked while its restore dialog is open is refused with the reason; after a reload its link shows it revoked and offers no restore', async () => {
  const snap = (await s.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID, name: 'to revoke' } })).body
  const page = await s.page()
  await signIn(page, s.base, TOKENS.editor)
  await page.goto(`${s.base}/app/t/${TEAM}/share?id=${enc(snap.id)}`)
  await page.getByText('active', { exact: true }).waitFor()
  await page.getByRole('button', { name: 'Restore into draft…' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Restore into draft' }).waitFor()
  await s.ctx.call('POST', `/content/snapshots/revoke/${TEAM}`, { body: { id: snap.id } })
  await page.getByRole('dialog').getByRole('button', { name: 'Restore into draft' }).click()
  const alert = page.getByRole('dialog').getByRole('alert')
  await alert.waitFor()
  expect(await alert.textContent()).toMatch(/revoked.*HTTP 409/i)
  await page.reload()
  await page.getByText('revoked', { exact: true }).waitFor()
  expect(await page.getByRole('article').textContent()).toContain('This snapshot is revoked: it cannot be restored.')
  expect(await page.getByRole('button', { name: 'Restore into draft…' }).isDisabled()).toBe(true)
  await page.close()
}, 60_000)

test.skipIf(!!missing)('snapshots: Share a version, open its link read-only, rename it, revoke it (then it cannot be restored)', async () => {
  const page = await s.page()
  await signIn(page, s.base, TOKENS.editor)
  const versions = await openHistory(page)
  await versions.last().getByRole('button', { name: /^Share/ }).click()
  const share = page.getByRole('dialog', { name: 'Share this version' })
  await share.getByLabel('Name (optional)').fill('first version')
  await share.getByRole('button', { name: 'Create snapshot' }).click()
  const link = await share.getByLabel('Share link').inputValue()
  expect(link).toContain(`/app/t/${TEAM}/share?id=`)
  const snapshotId = decodeURIComponent(link.slice(link.indexOf('id=') + 3))
  // The snapshot holds that version (v1), not the draft.
  expect((await s.ctx.call('GET', `/content/${TEAM}?id=${enc(snapshotId)}`)).body.fields.sku).toBe('v1')
  await page.goto(link)
  await page.getByRole('heading', { name: `Shared snapshot of ${ID}` }).waitFor()
  await page.getByRole('cell', { name: 'Eins' }).first().waitFor()
  expect(await page.getByRole('textbox').count()).toBe(0) // read-only: no field to edit

  await page.goto(`${s.base}/app/t/${TEAM}/edit?id=${enc(ID)}`)
  await page.getByRole('button', { name: 'History' }).click()
  const row = page.getByRole('listitem').filter({ hasText: 'first version' }).last()
  await row.getByRole('button', { name: /^Rename snapshot/ }).click()
  await page.getByLabel('New name').fill('renamed')
  await page.getByRole('button', { name: 'Rename', exact: true }).click()
  const renamed = page.getByRole('listitem').filter({ hasText: 'renamed' }).last()
  await renamed.waitFor()
  await renamed.getByRole('button', { name: 'Revoke' }).click()
  await page.getByRole('dialog', { name: 'Revoke this snapshot?' }).getByRole('button', { name: 'Revoke' }).click()
  await renamed.getByText('revoked', { exact: true }).waitFor()
  expect(await renamed.textContent()).toContain('This snapshot is revoked: it cannot be restored.')
  expect(await renamed.getByRole('button', { name: /^Restore/ }).isDisabled()).toBe(true)

  // After a reload the drawer still lists it, revoked, and an expired one as expired: neither restores.
  const brief = (await s.ctx.call('POST', `/content/snapshots/${TEAM}`, { body: { documentId: ID, name: 'brief', expiresAt: new Date(Date.now() + 1000).toISOString() } })).body
  expect(brief.status).toBe('active')
  await Bun.sleep(1100)
  await page.reload()
  await page.getByRole('button', { name: 'History' }).click()
  for (const [name, status] of [['renamed', 'revoked'], ['brief', 'expired']] as const) {
    const item = page.getByRole('listitem').filter({ hasText: name }).last()
    await item.getByText(status, { exact: true }).waitFor()
    expect(await item.textContent()).toContain(`This snapshot is ${status}: it cannot be restored.`)
    expect(await item.getByRole('button', { name: /^Restore/ }).isDisabled()).toBe(true)
    expect(await item.getByRole('button', { name: 'Revoke' }).count()).toBe(0)
  }
  expect(await page.getByRole('listitem').filter({ hasText: 'renamed' }).last().textContent()).toMatch(/revoked .*\d/)
  await page.close()
}, 60_000)

test.skipIf(!!missing)('the two team flags change the drawer, and only the drawer', async () => {
  const page = await s.page()
  await signIn(page, s.base, TOKENS.editor)
  const drawer = async (flags: { history: boolean; snapshots: boolean }) => {
    expect((await s.ctx.call('PUT', `/teams/${TEAM}/features`, { body: flags })).status).toBe(200)
    await page.goto(`${s.base}/`)
    await page.goto(`${s.base}/app/t/${TEAM}/edit?id=${enc(ID)}`)
    await page.getByLabel('title (en)').waitFor()
    if ((await page.getByRole('button', { name: 'History' }).count()) === 0) return 'none'
    await page.getByRole('button', { name: 'History' }).click()
    await page.getByRole('list', { name: 'Published Versions' }).waitFor()
    const snapshots = await page.getByRole('heading', { name: 'Snapshots' }).count()
    const share = await page.getByRole('button', { name: /^Share/ }).count()
    return `snapshots:${snapshots} share:${share > 0}`
  }
  expect(await drawer({ history: true, snapshots: true })).toBe('snapshots:1 share:true')
  expect(await drawer({ history: true, snapshots: false })).toBe('snapshots:0 share:false')
  expect(await drawer({ history: false, snapshots: true })).toBe('none')
  expect(await drawer({ history: false, snapshots: false })).toBe('none')
  await s.ctx.call('PUT', `/teams/${TEAM}/features`, { body: { history: true, snapshots: true } })
  await page.close()
}, 60_000)
