/**
 * docs/configuration.md's table against core/config.ts: the same variables, each one really read
 * by `loadConfig`, and every default written as a plain value is the one the code falls back to.
 */
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../../core/config'

const root = join(import.meta.dir, '../..')

/** The rows of the "Variables" table: name and the Default cell as written. */
function documented(): { name: string; defaultCell: string }[] {
  const page = readFileSync(join(root, 'docs/configuration.md'), 'utf8')
  const start = page.indexOf('\n## Variables\n')
  expect(start).toBeGreaterThan(-1)
  const end = page.indexOf('\n## ', start + 1)
  return [...page.slice(start, end).matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]+) \|/gm)].map((m) => ({ name: m[1]!, defaultCell: m[2]!.trim() }))
}

/** The variables core/config.ts reads: `env.NAME`, `env[...]` never, and `integer(env, 'NAME', ...)`-style calls. */
function read(): string[] {
  const source = readFileSync(join(root, 'core/config.ts'), 'utf8')
  const names = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? m[2]!)
  return [...new Set(names)].sort()
}

test('the table lists exactly the variables core/config.ts reads', () => {
  const names = documented().map((r) => r.name)
  expect(names.length).toBeGreaterThanOrEqual(16)
  expect(new Set(names).size).toBe(names.length)
  expect([...names].sort()).toEqual(read())
})

test('each documented variable is read by loadConfig: a value it cannot use is refused, naming it', () => {
  for (const { name } of documented()) {
    if (name === 'DATABASE_PATH') {
      expect(loadConfig({ DATABASE_PATH: '/var/lib/content/content.db' }).databasePath).toBe('/var/lib/content/content.db')
      continue
    }
    let error: unknown
    try {
      loadConfig({ [name]: 'not a value' })
    } catch (e) {
      error = e
    }
    expect({ name, refused: error instanceof ConfigError && (error as Error).message.startsWith(`${name} must`) }).toEqual({ name, refused: true })
  }
})

test('a default written as a plain value is what the code uses when the variable is unset', () => {
  const plain = documented().filter((r) => /^`[^`]+`$/.test(r.defaultCell))
  expect(plain.length).toBeGreaterThanOrEqual(12)
  for (const { name, defaultCell } of plain) {
    expect({ name, config: loadConfig({ [name]: defaultCell.slice(1, -1) }) }).toEqual({ name, config: loadConfig({}) })
  }
})
