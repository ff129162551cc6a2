/**
 * Async transactions on the one SQLite connection (db/transaction.ts, docs/architecture.md
 * "The store is async"): a transaction holds the connection across its awaits, so another
 * request's statements wait instead of running inside it; code inside a transaction that uses
 * the root database runs inside it (no deadlock); a nested transaction is a savepoint.
 */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { holdConnection, openDb, writeLockFreeNow } from '../../db/client'
import { loadDoc, saveDoc } from '../../db/store'
import { seed } from '../../cli/seed'
import { makeTestDir, TEAM, testSeed } from '../helpers'

const dir = makeTestDir('transaction-test-')
const db = openDb(join(dir, 'content.db'))
await seed(db, null, testSeed())
afterAll(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

const doc = (id: string, n: number) => ({ teamId: TEAM, id, canonicalId: id, kind: 'canonical' as const, collection: 'pages', body: { id, n } })
const bodyOf = async (id: string) => (await loadDoc(db, TEAM, id))?.body ?? null

test('a read from another request waits for the open transaction and sees only what it committed', async () => {
  await saveDoc(db, doc('pages/a', 0))
  const order: string[] = []
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const writer = db.transaction(async (tx) => {
    await saveDoc(tx, doc('pages/a', 1))
    order.push('written')
    await gate // timers and other requests run meanwhile
    await saveDoc(tx, doc('pages/a', 2))
    order.push('commit')
  }, { behavior: 'immediate' })
  await Bun.sleep(5)
  const reader = bodyOf('pages/a').then((body) => order.push(`read ${JSON.stringify(body)}`))
  await Bun.sleep(5)
  expect(order).toEqual(['written']) // the read is waiting, not reading the uncommitted n: 1
  expect(writeLockFreeNow(db)).toBe(false) // the dispatcher's gate: this process holds the connection
  release()
  await Promise.all([writer, reader])
  expect(order).toEqual(['written', 'commit', 'read {"id":"pages/a","n":2}'])
  expect(writeLockFreeNow(db)).toBe(true)
})

test('a throw rolls back everything the transaction wrote, across its awaits', async () => {
  await saveDoc(db, doc('pages/b', 0))
  const failed = db.transaction(async (tx) => {
    await saveDoc(tx, doc('pages/b', 1))
    await Bun.sleep(1)
    throw new Error('no')
  }, { behavior: 'immediate' })
  await expect(failed).rejects.toThrow('no')
  expect(await bodyOf('pages/b')).toEqual({ id: 'pages/b', n: 0 })
  expect(db.$client.inTransaction).toBe(false)
})

test('inside a transaction the root database is the transaction: no deadlock, its own writes visible', async () => {
  const seen = await db.transaction(async (tx) => {
    await saveDoc(tx, doc('pages/c', 1))
    expect(writeLockFreeNow(db)).toBe(true) // its own transaction: free for it
    return bodyOf('pages/c') // the root db, from inside
  }, { behavior: 'immediate' })
  expect(seen).toEqual({ id: 'pages/c', n: 1 })
})

test('a nested transaction is a savepoint: its rollback keeps the outer writes', async () => {
  await db.transaction(async (tx) => {
    await saveDoc(tx, doc('pages/d', 1))
    await expect(tx.transaction(async (inner) => {
      await saveDoc(inner, doc('pages/e', 1))
      throw new Error('inner')
    })).rejects.toThrow('inner')
    // The root database's transaction, called inside, is a savepoint too.
    await db.transaction(async () => saveDoc(db, doc('pages/f', 1)))
  }, { behavior: 'immediate' })
  expect([await bodyOf('pages/d'), await bodyOf('pages/e'), await bodyOf('pages/f')]).toEqual([{ id: 'pages/d', n: 1 }, null, { id: 'pages/f', n: 1 }])
})

test('concurrent transactions run one after another, in the order they asked', async () => {
  await saveDoc(db, doc('pages/g', 0))
  const bump = (tag: string) => db.transaction(async (tx) => {
    const n = ((await loadDoc(tx, TEAM, 'pages/g'))!.body as { n: number }).n
    await Bun.sleep(1)
    await saveDoc(tx, doc('pages/g', n + 1))
    return tag
  }, { behavior: 'immediate' })
  expect(await Promise.all(['a', 'b', 'c', 'd', 'e'].map(bump))).toEqual(['a', 'b', 'c', 'd', 'e'])
  expect(await bodyOf('pages/g')).toEqual({ id: 'pages/g', n: 5 }) // no lost update
})

test('holdConnection keeps other requests out between its read transaction and its write', async () => {
  await saveDoc(db, doc('pages/h', 0))
  const order: string[] = []
  const held = holdConnection(db, async () => {
    const before = await db.transaction(async (tx) => (await loadDoc(tx, TEAM, 'pages/h'))!.changeVector)
    await Bun.sleep(5)
    await db.transaction(async (tx) => saveDoc(tx, { ...doc('pages/h', 1), expect: before }), { behavior: 'immediate' })
    order.push('held')
  })
  await Bun.sleep(1)
  const other = saveDoc(db, doc('pages/h', 9)).then(() => order.push('other'))
  await Promise.all([held, other])
  expect(order).toEqual(['held', 'other'])
  expect(await bodyOf('pages/h')).toEqual({ id: 'pages/h', n: 9 })
})
