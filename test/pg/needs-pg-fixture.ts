/** A test file that needs PostgreSQL, run by test/pg/harness.test.ts with and without TEST_DATABASE_URL and CI. */
import { expect, test } from 'bun:test'
import { describePg } from './harness'

describePg('needs PostgreSQL', () => {
  test('runs', () => {
    expect(process.env.TEST_DATABASE_URL).toBeString()
  })
})
