/** The webhook cache on its own: loads once, drops on a version change or a forced refresh. */
import { expect, test } from 'bun:test'
import { WebhookCache } from '../../dispatcher/webhook-cache'

test('a webhook is read once, and again only after another process commits or a claim forces it', () => {
  const loads: string[] = []
  let target = 'http://a'
  let version = 1
  let versionReads = 0
  const cache = new WebhookCache((id) => (loads.push(id), id === 'gone' ? null : { target }), () => (versionReads++, version))
  cache.refresh(false, 0)
  expect(cache.get('w')).toEqual({ target: 'http://a' })
  expect(cache.get('gone')).toBeNull()
  expect(cache.get('gone')).toBeNull() // a deleted webhook is remembered too
  target = 'http://b'
  cache.refresh(false, 1)
  expect(cache.get('w')).toEqual({ target: 'http://a' }) // same version: nothing changed elsewhere
  version = 2
  cache.refresh(false, 1)
  expect(cache.get('w')).toEqual({ target: 'http://a' }) // within the same millisecond: not read again
  cache.refresh(false, 2)
  expect(cache.get('w')).toEqual({ target: 'http://b' })
  target = 'http://c'
  cache.refresh(true, 2)
  expect(cache.get('w')).toEqual({ target: 'http://c' })
  expect(loads).toEqual(['w', 'gone', 'w', 'w'])
  expect(versionReads).toBe(4)
})
