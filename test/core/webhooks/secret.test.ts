/** The rule for user-entered webhook secrets (contract.md "Webhooks": at least 32 random bytes). */
import { expect, test } from 'bun:test'
import { generateSecret, MIN_SECRET_LENGTH, secretProblem } from '../../../core/webhooks/service'

const ok = 'x'.repeat(MIN_SECRET_LENGTH)
const table: [string, string, RegExp | null][] = [
  ['3 characters', 'abc', /at least 32/],
  ['whitespace only', '   ', /whitespace/],
  ['31 characters', 'x'.repeat(31), /at least 32/],
  ['32 characters', ok, null],
  ['500 characters', 'x'.repeat(500), null],
  ['a trailing newline', `${ok}\n`, /whitespace/],
  ['a space inside', `${ok.slice(0, 16)} ${ok.slice(16)}`, /whitespace/],
  ['a tab', `${ok}\t`, /whitespace/],
  ['a non-breaking space', `${ok}\u00a0`, /whitespace/],
  ['punctuation and unicode', `whsec_${'ü-./+='.repeat(5)}`, null],
]
for (const [name, secret, expected] of table) {
  test(`secret with ${name}: ${expected ? 'refused' : 'accepted'}`, () => {
    const problem = secretProblem(secret)
    if (expected) expect(problem).toMatch(expected)
    else expect(problem).toBeNull()
  })
}

test('a generated secret passes the rule a user-entered one must pass', () => {
  for (let i = 0; i < 20; i++) expect(secretProblem(generateSecret())).toBeNull()
})
