import { expect, test } from 'bun:test'
import { shouldEmit } from '../../dispatcher/coalesce'

const rules = { quietMs: 30_000, maxHoldMs: 1_800_000 }
const table: [string, { firstAt: number; lastAt: number }, number, boolean, boolean][] = [
  ['quiet period not over', { firstAt: 0, lastAt: 10_000 }, 39_999, true, false],
  ['quiet period over, index caught up', { firstAt: 0, lastAt: 10_000 }, 40_000, true, true],
  ['quiet period over, index still building', { firstAt: 0, lastAt: 10_000 }, 40_000, false, false],
  ['changes keep coming: held', { firstAt: 0, lastAt: 1_799_000 }, 1_799_999, true, false],
  ['max hold reached though changes keep coming', { firstAt: 0, lastAt: 1_799_000 }, 1_800_000, true, true],
  ['max hold reached while the index builds', { firstAt: 0, lastAt: 100 }, 1_800_000, false, true],
]
for (const [name, held, now, indexCaughtUp, expected] of table) {
  test(`shouldEmit: ${name}`, () => expect(shouldEmit(held, { ...rules, now, indexCaughtUp })).toBe(expected))
}
