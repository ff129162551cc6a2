/**
 * The store's own guard against ids SQLite cannot keep as given (db/store.ts `storable`): a lone
 * UTF-16 surrogate would be written as U+FFFD, so two ids would share one row. The api refuses
 * such ids before they get here (test/api/ids.test.ts); this checks the store for every other caller.
 */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { loadDoc, saveDoc } from '../../db/store'
import { seed } from '../../cli/seed'
import { makeTestDir, TEAM, testSeed } from '../helpers'

const dir = makeTestDir('store-test-')
const db = openDb(join(dir, 'content.db'))
await seed(db, null, testSeed())
afterAll(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

const doc = (id: string) => ({ teamId: TEAM, id, canonicalId: id, kind: 'canonical' as const, collection: 'pages', body: { id } })

test('a lone surrogate id is neither written nor read, and cannot reach the U+FFFD document', async () => {
  await saveDoc(db, doc('pages/a\ufffd'))
  await expect(saveDoc(db, doc('pages/a\ud800'))).rejects.toThrow('lone surrogate')
  await expect(saveDoc(db, { ...doc('pages/b'), canonicalId: 'pages/b\udfff' })).rejects.toThrow('lone surrogate')
  expect(await loadDoc(db, TEAM, 'pages/a\udfff')).toBeNull()
  expect((await loadDoc(db, TEAM, 'pages/a\ufffd'))?.body).toEqual({ id: 'pages/a\ufffd' })
  expect(await loadDoc(db, TEAM, 'pages/b')).toBeNull()
})
