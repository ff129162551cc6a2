/**
 * What the documents API tests share: one app per test file (its own database, closed after
 * the file), the team's content route, a page builder and a reader bound to that app.
 */
import { afterAll, beforeAll } from 'bun:test'
import { createTestContext, enc, TEAM, type TestContext } from '../helpers'

export const base = `/content/${TEAM}`
export const IF_MATCH_FAILED = 'The document is not at the version If-Match names: it changed since you read it, or it does not exist (deleted documents do not). Re-read it and retry.'

export const page = (id: string, locales: Record<string, Record<string, unknown>> = { en: { title: 'T', slug: 's' } }, fields: Record<string, unknown> = { parent: 'pages/home' }) => ({ id, contentType: 'page', fields, locales })

/** A document without its `@metadata`, to compare with what was sent. */
export const strip = ({ '@metadata': _m, ...rest }: Record<string, unknown>) => rest

/** Registers the calling file's app (created before its tests, closed after) and returns it with a reader. */
export function documentsFixture() {
  const fx = {
    ctx: undefined as unknown as TestContext,
    read: async (id: string) => (await fx.ctx.call('GET', `${base}?id=${enc(id)}`)).body,
  }
  beforeAll(async () => { fx.ctx = await createTestContext() })
  afterAll(() => fx.ctx.close())
  return fx
}
