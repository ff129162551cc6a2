import { expect, test } from 'bun:test'
import { problemOf } from '../../web/api/problem'

test('each of the api error shapes reads as words with its code and status', () => {
  expect(problemOf(403, { error: 'forbidden', message: 'Missing capability: ChangeLiveContent.' }).text).toBe('Missing capability: ChangeLiveContent. (forbidden, HTTP 403)')
  expect(problemOf(409, [{ id: 'p', status: 1, reason: 'The draft changed meanwhile: save pending edits and retry.' }]).text).toBe('The draft changed meanwhile: save pending edits and retry. (conflict, HTTP 409)')
  expect(problemOf(400, { title: 'A non-empty request body is required.', status: 400, errors: {} }).text).toBe('A non-empty request body is required. (problem, HTTP 400)')
  expect(problemOf(502, '<html>bad gateway</html>').text).toBe('<html>bad gateway</html> (http_502, HTTP 502)')
  expect(problemOf(500, undefined).text).toBe('The server gave no reason. (http_500, HTTP 500)')
})
