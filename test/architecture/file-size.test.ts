/**
 * Small files (style.md): no source or test file of ours over 300 lines, so each one says one thing.
 * Generated and vendored files are not ours to size: migrations, the receiver's build, the
 * editor app's generated API types.
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'

const root = join(import.meta.dir, '../..')
const MAX_LINES = 300
const SKIP = [/^db\/migrations\//, /^receiver\/dist\//, /\.d\.ts$/, /^node_modules\//]

test(`no .ts or .tsx file of ours is over ${MAX_LINES} lines`, async () => {
  const tracked = Bun.spawnSync(['git', 'ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.tsx'], { cwd: root }).stdout.toString().split('\n').filter(Boolean)
  expect(tracked.length).toBeGreaterThan(100)
  const over: string[] = []
  for (const path of tracked.filter((p) => !SKIP.some((re) => re.test(p)))) {
    const file = Bun.file(join(root, path))
    if (!(await file.exists())) continue
    const lines = (await file.text()).trimEnd().split('\n').length
    if (lines > MAX_LINES) over.push(`${path}: ${lines}`)
  }
  expect(over).toEqual([])
})
