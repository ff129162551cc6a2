/**
 * The PostgreSQL pass (test/pg-pass.ts, scripts/test.ts) cannot lose a database test silently:
 * every test file that builds a test context, directly or through a fixture, either runs on it
 * or is listed with a reason, and every listed file exists and still builds one.
 */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { contextFiles, PG_PASS_SKIPS, pgPassFiles, root, testFiles } from '../pg-pass'

test('every file that mentions the test context, itself or in a test module it imports, is on the PostgreSQL pass or listed with a reason', () => {
  const onPass = new Set(pgPassFiles())
  const mentions = (file: string) => readFileSync(join(root, file), 'utf8').includes('createTestContext')
  const dropped = testFiles().filter((f) => f !== 'test/architecture/pg-pass.test.ts' && mentions(f) && !onPass.has(f) && !(f in PG_PASS_SKIPS))
  expect(dropped).toEqual([])
})

test('files that build the context through a fixture are found (documents, webhooks, loop, restore fixtures, the browser harness)', () => {
  const found = new Set(contextFiles())
  for (const f of ['test/api/documents.test.ts', 'test/api/webhooks.test.ts', 'test/dispatcher/loop.test.ts', 'test/core/restore/service.test.ts', 'test/api/assistant.test.ts', 'test/browser/restore.test.ts', 'test/browser/swagger.test.ts']) {
    expect({ f, found: found.has(f) }).toEqual({ f, found: true })
  }
  // Pure rules build none and run once.
  expect(found.has('test/core/delivery/retry.test.ts')).toBe(false)
})

test('every file left out of the PostgreSQL pass exists, builds a test context, and says why', () => {
  const context = new Set(contextFiles())
  for (const [file, skip] of Object.entries(PG_PASS_SKIPS)) {
    expect({ file, buildsContext: context.has(file), reason: skip.reason.length > 10 }).toEqual({ file, buildsContext: true, reason: true })
  }
})
