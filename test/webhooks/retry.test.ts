import { expect, test } from 'bun:test'
import { MAX_ATTEMPTS, nextStep, retryDelayMs } from '../../dispatcher/retry'

test('spec schedule: 3 attempts, waits 1-2 s then 2-3 s', () => {
  expect(MAX_ATTEMPTS).toBe(3)
  expect([retryDelayMs(1, 0), retryDelayMs(1, 0.9999), retryDelayMs(2, 0), retryDelayMs(2, 0.9999)]).toEqual([1000, 1999, 2000, 2999])
})

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
