import { expect, test } from 'bun:test'
import { MAX_ATTEMPTS, nextStep, retryDelayMs } from '../../../core/delivery/retry'

test('spec schedule: 3 attempts, waits 1-2 s then 2-3 s, jitter kept 100 ms inside each window', () => {
  expect(MAX_ATTEMPTS).toBe(3)
  expect([retryDelayMs(1, 0), retryDelayMs(1, 0.9999), retryDelayMs(2, 0), retryDelayMs(2, 0.9999)]).toEqual([1100, 1899, 2100, 2899])
})

// [attempt, random, lowest, highest]: whatever the jitter, the wait leaves room for the pickup.
const windows: [number, number, number, number][] = [
  [1, -1, 1100, 1900], [1, 0, 1100, 1900], [1, 0.5, 1100, 1900], [1, 0.999999, 1100, 1900], [1, 2, 1100, 1900],
  [2, -1, 2100, 2900], [2, 0, 2100, 2900], [2, 0.5, 2100, 2900], [2, 0.999999, 2100, 2900], [2, 2, 2100, 2900],
]
for (const [attempt, random, lo, hi] of windows) {
  test(`after attempt ${attempt}, random ${random}: wait in [${lo}, ${hi}]`, () => {
    const ms = retryDelayMs(attempt, random)
    expect(ms >= lo && ms <= hi).toBe(true)
  })
}

const table: [number, { statusCode: number | null; refused?: boolean }, ReturnType<typeof nextStep>][] = [
  [1, { statusCode: 200 }, { status: 'delivered' }],
  [1, { statusCode: 204 }, { status: 'delivered' }],
  [1, { statusCode: 500 }, { status: 'pending', delayMs: 1500 }],
  [2, { statusCode: 502 }, { status: 'pending', delayMs: 2500 }],
  [3, { statusCode: 503 }, { status: 'failed' }],
  [1, { statusCode: null }, { status: 'pending', delayMs: 1500 }], // timeout / network
  [3, { statusCode: null }, { status: 'failed' }],
  [1, { statusCode: 404 }, { status: 'failed' }],
  [1, { statusCode: 401 }, { status: 'failed' }],
  [1, { statusCode: 301 }, { status: 'failed' }], // redirects are not followed
  [1, { statusCode: null, refused: true }, { status: 'failed' }], // SSRF refusal is final
]
for (const [attempt, outcome, expected] of table) {
  test(`attempt ${attempt} ${JSON.stringify(outcome)} -> ${expected.status}`, () => expect(nextStep(attempt, outcome, 0.5)).toEqual(expected))
}
