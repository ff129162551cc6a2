/**
 * Shared set-up for restore, snapshot and history tests: documents written, published and
 * read through the real HTTP API (never straight into the store).
 */
import { afterEach, beforeEach, expect } from 'bun:test'
import { createTestContext, enc, TEAM, type TestContext } from '../../helpers'

export type Doc = { id: string; contentType: string; fields: Record<string, unknown>; locales: Record<string, Record<string, unknown>> }

export const ID = 'pages/about'
export const V1: Doc = {
  id: ID, contentType: 'page', fields: { parent: 'pages/home', sku: 'A-1' },
  locales: { en: { title: 'About v1', slug: 'about' }, de: { title: 'Über v1', slug: 'ueber' } },
}
/** v2 adds `fr`: a locale published after v1 was taken. */
export const V2: Doc = {
  id: ID, contentType: 'page', fields: { parent: 'pages/home', sku: 'A-2' },
  locales: { en: { title: 'About v2', slug: 'about' }, de: { title: 'Über v2', slug: 'ueber' }, fr: { title: 'À propos v2', slug: 'a-propos' } },
}

export async function ok(res: Promise<{ status: number; body: any }>, status = 200) {
  const r = await res
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`)
  return r.body
}

export const put = (ctx: TestContext, doc: Doc, token?: string) => ok(ctx.call('POST', `/content/${TEAM}`, { body: doc, token }))
export const read = (ctx: TestContext, id: string) => ctx.call('GET', `/content/${TEAM}?id=${enc(id)}`)
export async function publish(ctx: TestContext, id: string) {
  const [item] = await ok(ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } }))
  expect(item.status).toBe(0)
  return item
}
export async function versionRefs(ctx: TestContext, id: string): Promise<string[]> {
  const page = await ok(ctx.call('GET', `/content/versions/${TEAM}?id=${enc(id)}`))
  return page.rows.map((r: { version: string }) => r.version)
}
/** Entries without their timestamps, for whole-object comparison. */
export async function activity(ctx: TestContext, id: string) {
  const res = await read(ctx, `${id}/activity`)
  if (res.status === 404) return []
  return (res.body.entries as { at: string }[]).map(({ at: _at, ...e }) => e)
}
/** A served document without `@metadata`. */
export const bare = (doc: Record<string, unknown>) => {
  const { '@metadata': _m, ...rest } = doc
  return rest
}
export const cv = (doc: Record<string, any>) => doc['@metadata']['@change-vector'] as string

export const applyVersion = (ctx: TestContext, body: unknown, opts: { token?: string; headers?: Record<string, string> } = {}) =>
  ctx.call('POST', `/content/apply-version/${TEAM}`, { body, ...opts })
export const applySnapshot = (ctx: TestContext, body: unknown, opts: { token?: string; headers?: Record<string, string> } = {}) =>
  ctx.call('POST', `/content/apply-snapshot/${TEAM}`, { body, ...opts })

/**
 * `pages/about` published as v1 then v2 (so `fr` was published after v1), then a draft that
 * changes `en` and the non-localizable `sku`, keeps `de` as live and drops `fr`.
 * Returns the version references, newest first: [v2, v1].
 */
export async function publishedTwice(ctx: TestContext) {
  await put(ctx, V1)
  await publish(ctx, ID)
  await put(ctx, V2)
  await publish(ctx, ID)
  const [v2, v1] = await versionRefs(ctx, ID)
  return { v1: v1!, v2: v2! }
}

export const DRAFT: Doc = {
  id: `${ID}/draft`, contentType: 'page', fields: { parent: 'pages/home', sku: 'A-3' },
  locales: { en: { title: 'About draft', slug: 'about' }, de: V2.locales.de! },
}

const edit = (locale: string | null) => ({ kind: 'EDIT', locale, userId: 'u-editor' })
/** The activity `publishedTwice` + `DRAFT` leave: canonical v1, canonical v2, then the draft edit. */
export const HISTORY = [
  edit('de'), edit('en'), edit(null),
  edit('de'), edit('en'), edit('fr'), edit(null),
  edit('en'), edit('fr'), edit(null),
]

/**
 * Registers a fresh app for each test of the calling file (closed after it), with `ID`
 * published twice first when asked; `fx.v1` is then its older version.
 */
export function restoreFixture(opts: { publishedTwice?: boolean } = {}) {
  const fx = { ctx: undefined as unknown as TestContext, v1: '' }
  beforeEach(async () => {
    fx.ctx = await createTestContext()
    if (opts.publishedTwice) fx.v1 = (await publishedTwice(fx.ctx)).v1
  })
  afterEach(() => fx.ctx.close())
  return fx
}
