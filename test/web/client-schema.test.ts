import { expect, test } from 'bun:test'
import { generateClientSchema, SCHEMA_FILE } from '../../scripts/gen-client'

test('web/api/schema.d.ts is what `bun run gen:client` writes from the current OpenAPI document', async () => {
  const current = await Bun.file(SCHEMA_FILE).text()
  const fresh = await generateClientSchema()
  // On failure: run `bun run gen:client` and commit web/api/schema.d.ts.
  expect(current === fresh).toBe(true)
})

test('the generated types name the routes the editor app calls', async () => {
  const text = await Bun.file(SCHEMA_FILE).text()
  for (const path of ['/me', '/content/list/{activeTeam}', '/content/history/{activeTeam}', '/content/apply-version/{activeTeam}', '/teams/{teamId}/features', '/teams/{teamId}/webhooks']) {
    expect(text).toContain(`"${path}"`)
  }
})
