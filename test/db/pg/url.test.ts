/** db/pg/url.ts: what counts as a DATABASE_URL, and that no shape of one shows its password. */
import { expect, test } from 'bun:test'
import { maskUrl, pgUrlProblem } from '../../../db/pg/url'

test('maskUrl hides the password of any URL, parsable or not, and shows the rest', () => {
  expect([
    'postgres://app:secret@db:5432/content',
    'postgresql://app:se@cr%2Fet@db/content?sslmode=require',
    'postgres://app@db/content',
    'postgres://app@db/content?password=secret&application_name=x',
    'postgres://app:sec/ret@db:x/content', // does not parse: masked by its shape
    'app:secret@db/content', // no scheme: parses as scheme "app:", masked by its shape
    'not a url at all',
  ].map(maskUrl)).toEqual([
    'postgres://app:***@db:5432/content',
    'postgresql://app:***@db/content?sslmode=require',
    'postgres://app@db/content',
    'postgres://app@db/content?password=***&application_name=x',
    'postgres://app:***@db:x/content',
    'app:***@db/content',
    'not a url at all',
  ])
})

test('pgUrlProblem takes postgres: and postgresql: URLs with a host (or a socket), and says what is wrong with others', () => {
  const cases = ['postgres://app:pw@db:5432/content', 'postgresql://db/content', 'postgres:///content?host=/var/run/postgresql',
    'mysql://db/content', 'postgres:///content', 'db:5432', 'postgres://db:99999/content', '']
  expect(cases.map(pgUrlProblem)).toEqual([null, null, null, 'its scheme is "mysql"', 'it names no host', 'its scheme is "db"', 'it is not a URL', 'it is not a URL'])
})
