import { expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { redirect } from '../../../api/http/redirect'

const app = new Elysia().use(redirect()).get('/swagger', () => 'page').get('/swagger/json', () => ({}))
const send = (path: string) => app.handle(new Request(`http://localhost${path}`))

test('/swagger/ answers 308 to /swagger, keeping the query', async () => {
  for (const [path, location] of [['/swagger/', '/swagger'], ['/swagger/?a=1', '/swagger?a=1']] as const) {
    const res = await send(path)
    expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({ path, status: 308, location })
  }
})

test('every other path goes on to its route', async () => {
  expect(await (await send('/swagger')).text()).toBe('page')
  expect((await send('/swagger/json')).status).toBe(200)
})
