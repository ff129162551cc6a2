import { sqliteOf, sqliteOnly } from '../dialect'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestContext, holdWriteLock, TEAM, TOKENS, waitFor, type TestContext } from '../helpers'
import { errorResponse } from '../../api/http/error-mapping'
import { BUSY_REASON, busyItem, runBatchWaiting } from '../../core/batch'
import { countRevisions } from '../../db/store'
import { createLogger } from '../../core/log'

const lockTest = sqliteOnly('bun:sqlite write lock and busy_timeout; PostgreSQL has no database-wide write lock').test

let ctx: TestContext
beforeAll(async () => { ctx = await createTestContext() })
afterAll(() => ctx.close())

test('health answers without auth', async () => {
  const res = await ctx.call('GET', '/health', { token: null })
  expect(res).toMatchObject({ status: 200, body: { status: 'ok' } })
})

test('/metrics needs a valid bearer token (any user), unless METRICS_PUBLIC=true', async () => {
  for (const token of [null, 'tok-unknown']) {
    const res = await ctx.call('GET', '/metrics', { token })
    expect({ token, status: res.status, body: res.body }).toEqual({ token, status: 401, body: { error: 'unauthorized', message: expect.any(String) } })
  }
  const member = await ctx.call('GET', '/metrics', { token: TOKENS.outsider })
  expect(member.status).toBe(200)
  expect(member.text).toContain('service_api_publish_revisions')
  const open = await createTestContext({ env: { METRICS_PUBLIC: 'true' } })
  try {
    const res = await open.call('GET', '/metrics', { token: null })
    expect(res.status).toBe(200)
    expect(res.text).toContain('service_api_publish_revisions')
    // Only /metrics opens: everything else still wants a token.
    expect((await open.call('GET', `/content/versions/${TEAM}?id=pages/home`, { token: null })).status).toBe(401)
  } finally {
    open.close()
  }
})

test('the API description needs no token (browsers and client generators fetch it without one)', async () => {
  expect((await ctx.call('GET', '/swagger/json', { token: null })).status).toBe(200)
})

test('seeded published page has one version', async () => {
  const res = await ctx.call('GET', `/content/versions/${TEAM}?id=pages/home`)
  expect(res.status).toBe(200)
  expect(res.body.rows).toHaveLength(1)
})

test('a known path under another method is 405 with Allow; an unknown path stays 404', async () => {
  const cases: [string, string, string][] = [
    ['POST', '/health', 'GET, HEAD'],
    ['DELETE', `/content/versions/${TEAM}`, 'GET, HEAD'],
    ['PUT', `/content/${TEAM}`, 'GET, HEAD, PATCH, POST'],
    ['POST', `/teams/${TEAM}/webhooks/wh-1/deliveries`, 'GET, HEAD'],
    ['DELETE', `/teams/${TEAM}/locales/`, 'GET, HEAD, PUT'],
  ]
  for (const [method, path, allow] of cases) {
    const res = await ctx.call(method, path)
    expect({ method, path, status: res.status, allow: res.headers.get('allow'), body: res.body })
      .toEqual({ method, path, status: 405, allow, body: { error: 'method_not_allowed', message: expect.stringContaining(method) } })
  }
  const unknown = await ctx.call('GET', `/content/nothing/here/${TEAM}`)
  expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found', message: expect.any(String) } })
  expect(unknown.headers.get('allow')).toBeNull()
  // Authentication still comes first: an anonymous caller learns no route's methods.
  expect(await ctx.call('POST', `/content/versions/${TEAM}`, { token: null })).toMatchObject({ status: 401, body: { error: 'unauthorized' } })
})

test('HEAD answers as GET without a body, through the same checks', async () => {
  const health = await ctx.call('HEAD', '/health', { token: null })
  expect({ status: health.status, text: health.text, type: health.headers.get('content-type') })
    .toEqual({ status: 200, text: '', type: expect.stringContaining('application/json') })
  expect((await ctx.call('HEAD', `/content/versions/${TEAM}?id=pages/home`, { token: null })).status).toBe(401)
  const versions = await ctx.call('HEAD', `/content/versions/${TEAM}?id=pages/home`)
  expect({ status: versions.status, text: versions.text }).toEqual({ status: 200, text: '' })
  expect((await ctx.call('HEAD', `/content/versions/${TEAM}?id=pages/none`)).status).toBe(404)
})

lockTest('a write that waits past the busy timeout on another process\'s lock is 503 busy with Retry-After, then goes through; the failure is logged with method and path', async () => {
  const lines: string[] = []
  const logged = await createTestContext({ logTo: (line) => lines.push(line) })
  sqliteOf(logged.db).$client.exec('PRAGMA busy_timeout = 50')
  const other = holdWriteLock(logged.path) // as a long seed in another process holds it
  try {
    const doc = { id: 'pages/busy', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'B', slug: 'busy' } } }
    // With a query: the logged path leaves it out (a query may carry ids or tokens of other systems).
    const res = await logged.call('POST', `/content/${TEAM}?id=pages/busy`, { body: doc })
    expect({ status: res.status, body: res.body, retryAfter: res.headers.get('retry-after') })
      .toEqual({ status: 503, body: { error: 'busy', message: expect.any(String) }, retryAfter: '1' })
    const warn = lines.map((l) => JSON.parse(l)).find((l) => l.msg.includes('locked'))
    expect(warn).toMatchObject({ level: 40, method: 'POST', path: `/content/${TEAM}` })
    other.release()
    expect((await logged.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
  } finally {
    other.release()
    await logged.close()
  }
})

lockTest('a write waiting for another process\'s lock does not hold up other requests, and goes through when the lock is free', async () => {
  const waiting = await createTestContext()
  const other = holdWriteLock(waiting.path) // a large seed in another process holds the write lock
  try {
    const doc = { id: 'pages/waits', contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: 'W', slug: 'waits' } } }
    let writeDone = false
    const write = waiting.call('POST', `/content/${TEAM}`, { body: doc }).finally(() => (writeDone = true))
    // bun:sqlite waits for a lock synchronously: before, the read below was answered only after
    // the write had waited out the whole busy timeout (10 s) and failed 503.
    const started = performance.now()
    const health = await waiting.call('GET', '/health', { token: null })
    const read = await waiting.call('GET', `/content/${TEAM}?id=pages/home`)
    expect({ health: health.status, read: read.status, writeDone }).toEqual({ health: 200, read: 200, writeDone: false })
    expect(performance.now() - started).toBeLessThan(2000)
    other.release('COMMIT')
    const res = await write
    expect({ status: res.status, id: res.body.id }).toEqual({ status: 200, id: 'pages/waits' })
  } finally {
    other.release()
    await waiting.close()
  }
})

lockTest('a batch waits for a lock taken between its items on timers too: reads answer meanwhile; past the timeout the rest are busy refusals, the done ones named', async () => {
  const batch = await createTestContext()
  const ids = ['pages/b1', 'pages/b2', 'pages/b3']
  for (const id of ids) await batch.call('POST', `/content/${TEAM}`, { body: { id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: id, slug: id.slice(6) } } } })
  // Another process (a seed) takes the write lock right after the batch's first publish.
  let other: ReturnType<typeof holdWriteLock> | null = null
  const inc = batch.metrics.apiPublishRevisions.inc.bind(batch.metrics.apiPublishRevisions)
  batch.metrics.apiPublishRevisions.inc = ((...args: Parameters<typeof inc>) => {
    other ??= holdWriteLock(batch.path)
    return inc(...args)
  }) as typeof inc
  try {
    let done = false
    const publish = batch.call('POST', `/content/publish/${TEAM}`, { body: { ids } }).finally(() => (done = true))
    await waitFor(() => other !== null)
    // Before, the second item waited inside SQLite: this process answered nothing for up to 10 s.
    const started = performance.now()
    const health = await batch.call('GET', '/health', { token: null })
    const read = await batch.call('GET', `/content/${TEAM}?id=pages/b1`)
    expect({ health: health.status, read: read.status, live: read.body['@metadata']?.published, done }).toEqual({ health: 200, read: 200, live: true, done: false })
    expect(performance.now() - started).toBeLessThan(2000)
    other!.release('COMMIT')
    expect((await publish).body.map((i: { status: number }) => i.status)).toEqual([0, 0, 0])

    // Past the busy timeout: the items the lock stopped are refused with a busy reason (200, the list
    // says which went live); only a lock that stopped the first item leaves nothing done: 503.
    sqliteOf(batch.db).$client.exec('PRAGMA busy_timeout = 100')
    other = null
    const partly = await batch.call('POST', `/content/publish/${TEAM}`, { body: { ids } })
    expect({ status: partly.status, body: partly.body }).toEqual({ status: 200, body: [
      { id: 'pages/b1', status: 0, document: expect.objectContaining({ id: 'pages/b1' }) },
      { id: 'pages/b2', status: 1, reason: BUSY_REASON },
      { id: 'pages/b3', status: 1, reason: BUSY_REASON },
    ] })
    expect(await countRevisions(batch.db, TEAM, 'pages/b2')).toBe(1)
    const archive = await batch.call('POST', `/content/archive/${TEAM}`, { body: { ids } })
    expect({ status: archive.status, body: archive.body, retryAfter: archive.headers.get('retry-after') })
      .toEqual({ status: 503, body: { error: 'busy', message: expect.any(String) }, retryAfter: '1' })
    ;(other as ReturnType<typeof holdWriteLock> | null)?.release()
    const archived = await batch.call('POST', `/content/archive/${TEAM}`, { body: { ids } })
    expect(archived.body.map((i: { status: number }) => i.status)).toEqual([0, 0, 0])
  } finally {
    ;(other as ReturnType<typeof holdWriteLock> | null)?.release()
    await batch.close()
  }
})

lockTest('the batch driver: a lock past the timeout after the first item refuses the rest in their order; on the first item it throws', async () => {
  const c = await createTestContext()
  sqliteOf(c.db).$client.exec('PRAGMA busy_timeout = 50')
  let other: ReturnType<typeof holdWriteLock> | null = null
  try {
    const ran: string[] = []
    const run = (id: string) => {
      ran.push(id)
      other ??= holdWriteLock(c.path)
      return { id, status: 0 as const }
    }
    // Run in the order c, a, b: after c, the lock stops a and b.
    expect(await runBatchWaiting(c.db, ['a', 'b', 'c'], [2, 0, 1], run)).toEqual([busyItem('a'), busyItem('b'), { id: 'c', status: 0 }])
    expect(ran).toEqual(['c'])
    await expect(runBatchWaiting(c.db, ['d', 'e'], [0, 1], run)).rejects.toThrow(/locked/)
    expect(ran).toEqual(['c'])
  } finally {
    ;(other as ReturnType<typeof holdWriteLock> | null)?.release()
    await c.close()
  }
})

test('a response that breaks its own schema is a 500 whose log line says where, never the value (a webhook answer holds the full secret)', async () => {
  const lines: string[] = []
  const log = createLogger('info', 'test', { write: (line: string) => void lines.push(line) })
  const secret = 'whsec_do-not-log-me-0123456789abcdef'
  // What Elysia throws for a response check, with the value in `all`, in `value` and in the message.
  const error = Object.assign(new Error(`Expected string: ${JSON.stringify({ secret })}`), {
    type: 'response', value: { secret }, all: [{ path: '/secretLast4', message: 'Expected string', value: { secret } }],
  })
  const res = errorResponse(error, 'VALIDATION', log)
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 500, body: { error: 'internal', message: 'Internal error.' } })
  expect(lines).toHaveLength(1)
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, at: '/secretLast4', expected: 'Expected string' })
  expect(lines[0]).not.toContain('do-not-log-me')
})

lockTest('a lock error wrapped by drizzle\'s query layer is the same 503 busy', async () => {
  const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })
  const wrapped = Object.assign(new Error('Failed query: INSERT ...'), { cause: busy })
  const res = errorResponse(wrapped, 'UNKNOWN', createLogger('silent', 'test'))
  expect({ status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') })
    .toEqual({ status: 503, body: { error: 'busy', message: expect.any(String) }, retryAfter: '1' })
})
