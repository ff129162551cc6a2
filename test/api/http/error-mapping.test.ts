import { expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { errorMapping } from '../../../api/http/error-mapping'
import { AppError, BatchError, ProblemError } from '../../../core/errors'
import { createLogger } from '../../../core/log'

const lines: any[] = []
const log = createLogger('info', 'test', { write: (line: string) => void lines.push(JSON.parse(line)) })
let routes = (): readonly { method: string; path: string }[] => []
const app = new Elysia({ normalize: false })
  .use(errorMapping(log, () => routes()))
  .get('/app-error', () => { throw new AppError(401, 'unauthorized', 'Who are you?') })
  .get('/batch', () => { throw new BatchError(409, { id: 'pages/a', status: 1, reason: 'Changed meanwhile.' }) })
  .get('/problem', () => { throw new ProblemError('One or more validation errors occurred.', { body: ['A body is required.'] }) })
  .get('/busy', () => { throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }) })
  .get('/boom', () => { throw new Error('secret detail') })
  .post('/body', ({ body }) => body, { body: t.Object({ id: t.String({ maxLength: 512 }), name: t.Optional(t.String({ maxLength: 3 })) }, { additionalProperties: false }) })
  .get('/query', ({ query }) => query, { query: t.Object({ id: t.String() }) })
  .get('/answer', () => ({ secret: 'whsec_full' }) as never, { response: t.Object({ ok: t.Boolean() }) })
routes = () => app.routes
const send = async (method: string, path: string, body?: unknown) => {
  const res = await app.handle(new Request(`http://localhost${path}`, body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }))
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any, headers: res.headers }
}

test('domain errors get the shapes spec.md fixes, each as JSON', async () => {
  const unauthorized = await send('GET', '/app-error')
  expect({ ...unauthorized, headers: unauthorized.headers.get('www-authenticate') }).toEqual({ status: 401, type: 'application/json; charset=utf-8', body: { error: 'unauthorized', message: 'Who are you?' }, headers: 'Bearer' })
  expect((await send('GET', '/batch')).body).toEqual([{ id: 'pages/a', status: 1, reason: 'Changed meanwhile.' }])
  const problem = await send('GET', '/problem')
  expect({ status: problem.status, type: problem.type, body: problem.body }).toEqual({
    status: 400, type: 'application/problem+json; charset=utf-8', body: { title: 'One or more validation errors occurred.', status: 400, errors: { body: ['A body is required.'] } },
  })
})

test('validation failures are 400 with the spec\'s codes, never 422', async () => {
  expect((await send('POST', '/body', {})).body).toEqual({ error: 'missing_id', message: '`id` is required.' })
  expect((await send('POST', '/body', { id: 'x'.repeat(513) })).body.error).toBe('invalid_id')
  expect((await send('POST', '/body', { id: 'a', name: 'long' })).body.error).toBe('invalid_name')
  expect((await send('POST', '/body', { id: 'a', other: 1 })).body.error).toBe('invalid_body')
  expect((await send('POST', '/body', { id: 1 })).status).toBe(400)
  expect((await send('GET', '/query')).body).toEqual({ error: 'missing_id', message: 'Query parameter `id` is required.' })
})

test('an unknown path is 404; a known path under another method is 405 with Allow', async () => {
  expect(await send('GET', '/nowhere')).toMatchObject({ status: 404, body: { error: 'not_found', message: 'No such route.' } })
  const wrong = await send('DELETE', '/body')
  expect({ status: wrong.status, body: wrong.body, allow: wrong.headers.get('allow') }).toEqual({ status: 405, body: { error: 'method_not_allowed', message: 'DELETE is not allowed here; use POST.' }, allow: 'POST' })
})

test('a held write lock is 503 busy with Retry-After; anything else is 500 internal, logged with method and path', async () => {
  const busy = await send('GET', '/busy')
  expect({ status: busy.status, body: busy.body.error, retry: busy.headers.get('retry-after') }).toEqual({ status: 503, body: 'busy', retry: '1' })
  lines.length = 0
  expect(await send('GET', '/boom')).toMatchObject({ status: 500, body: { error: 'internal', message: 'Internal error.' } })
  expect(lines.find((l) => l.msg === 'unhandled error')).toMatchObject({ method: 'GET', path: '/boom' })
})

test('an answer its declared schema refuses is our 500, logged without the value', async () => {
  lines.length = 0
  expect(await send('GET', '/answer')).toMatchObject({ status: 500, body: { error: 'internal' } })
  expect(JSON.stringify(lines)).not.toContain('whsec_full')
  expect(lines.some((l) => l.msg === 'response does not match its declared schema')).toBe(true)
})
