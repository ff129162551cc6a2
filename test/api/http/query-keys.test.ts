import { expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { queryKeys } from '../../../api/http/query-keys'

const app = new Elysia().use(queryKeys()).get('/x', ({ query }) => query)
const send = (search: string) => app.handle(new Request(`http://localhost/x${search}`))

test('a repeated query key is 400 invalid_body naming each repeated key once', async () => {
  const res = await send('?id=a&id=b&x=1&x=2&x=3&y=1')
  expect({ status: res.status, body: await res.json() }).toEqual({
    status: 400, body: { error: 'invalid_body', message: 'A query parameter may be given once; repeated: id, x.' },
  })
})

test('keys given once reach the route', async () => {
  const res = await send('?id=a&x=1')
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { id: 'a', x: '1' } })
})
