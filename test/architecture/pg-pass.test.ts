/**
 * The PostgreSQL pass (test/pg-pass.ts, scripts/test.ts) cannot lose a database test silently:
 * every test file that builds a test context, directly or through a fixture, or starts processes
 * (test/e2e, test/dispatcher), either runs on it or is listed with a reason, and every listed
 * file exists and still does so.
 */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { contextFiles, PG_PASS_SKIPS, pgPassFiles, processFiles, root, runsOnPgAlready, testFiles } from '../pg-pass'

test('every file that mentions the test context, itself or in a test module it imports, is on the PostgreSQL pass or listed with a reason', () => {
  const onPass = new Set(pgPassFiles())
  const mentions = (file: string) => /createTestContext|processDatabase|processEnv/.test(readFileSync(join(root, file), 'utf8'))
  const dropped = testFiles().filter((f) => f !== 'test/architecture/pg-pass.test.ts' && mentions(f) && !onPass.has(f) && !(f in PG_PASS_SKIPS))
  expect(dropped).toEqual([])
})

test('every file that starts the api, the dispatcher, bun start or workers as processes is on the PostgreSQL pass, listed with a reason, or a PostgreSQL test of its own', () => {
  const onPass = new Set(pgPassFiles())
  const dropped = processFiles().filter((f) => !onPass.has(f) && !(f in PG_PASS_SKIPS) && !runsOnPgAlready(f))
  expect(dropped).toEqual([])
  // The races and crash recovery the issue names are on it.
  for (const f of ['test/e2e/restore-race.test.ts', 'test/e2e/patch-race.test.ts', 'test/e2e/two-apis.test.ts', 'test/dispatcher/crash-recovery.test.ts']) expect({ f, on: onPass.has(f) }).toEqual({ f, on: true })
})

test('files that build the context through a fixture are found (documents, webhooks, loop, restore fixtures, the browser harness)', () => {
  const found = new Set(contextFiles())
  for (const f of ['test/api/documents.test.ts', 'test/api/webhooks.test.ts', 'test/dispatcher/loop.test.ts', 'test/core/restore/service.test.ts', 'test/api/assistant.test.ts', 'test/browser/restore.test.ts', 'test/browser/swagger.test.ts']) {
    expect({ f, found: found.has(f) }).toEqual({ f, found: true })
  }
  // Pure rules build none and run once.
  expect(found.has('test/core/delivery/retry.test.ts')).toBe(false)
})

test('every file left out of the PostgreSQL pass exists, builds a test context or starts processes, and says why', () => {
  const context = new Set([...contextFiles(), ...processFiles()])
  for (const [file, skip] of Object.entries(PG_PASS_SKIPS)) {
    expect({ file, buildsContext: context.has(file), reason: skip.reason.length > 10 }).toEqual({ file, buildsContext: true, reason: true })
  }
})
