/** One claim at a time: a run asked while one is in progress follows it, merged with the others asked meanwhile. */
import { expect, test } from 'bun:test'
import { OneAtATime } from '../../dispatcher/one-at-a-time'

test('runs asked during a run wait for it and are merged into one follow-up; idle() waits for both', async () => {
  const log: string[] = []
  let open = 0
  let release: () => void = () => {}
  const runs = new OneAtATime<string[]>(async (a) => {
    open++
    expect(open).toBe(1) // never two at once
    log.push(`start ${a.join('+')}`)
    await new Promise<void>((resolve) => (release = resolve))
    log.push(`end ${a.join('+')}`)
    open--
  }, (queued, asked) => [...(queued ?? []), ...asked])
  const first = runs.run(['a'])
  expect(runs.busy).toBe(true)
  const second = runs.run(['b'])
  const third = runs.run(['c'])
  const idle = runs.idle()
  release()
  await Bun.sleep(1)
  release()
  await Promise.all([first, second, third, idle])
  expect(log).toEqual(['start a', 'end a', 'start b+c', 'end b+c'])
  expect(runs.busy).toBe(false)
})

test('a run that throws rejects the callers that joined it, and the next run starts afresh', async () => {
  let fail = true
  const runs = new OneAtATime<number>(async () => {
    await Bun.sleep(1)
    if (fail) throw new Error('claim failed')
  }, (_, a) => a)
  const a = runs.run(1)
  const b = runs.run(2)
  await expect(a).rejects.toThrow('claim failed')
  await expect(b).rejects.toThrow('claim failed')
  await runs.idle()
  fail = false
  await runs.run(3)
  expect(runs.busy).toBe(false)
})
