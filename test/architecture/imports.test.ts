/**
 * The layer rule of docs/architecture.md over the real import graph (dependency-cruiser, with
 * the rules in .dependency-cruiser.cjs), and the compiled dispatcher's bundle without Elysia.
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cruise, type ICruiseResult } from 'dependency-cruiser'
import { makeTestDir } from '../helpers'

const root = join(import.meta.dir, '../..')
const LAYERS = ['api', 'core', 'db', 'dispatcher', 'cli', 'scripts', 'receiver']
const config = require(join(root, '.dependency-cruiser.cjs'))

/** The rule violations dependency-cruiser finds under `baseDir`, one line each. */
async function violations(baseDir: string, dirs: string[]): Promise<string[]> {
  const cwd = process.cwd()
  process.chdir(baseDir)
  try {
    const { output } = await cruise(dirs, { ...config.options, ruleSet: { forbidden: config.forbidden }, validate: true, baseDir: '.' })
    return (output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`)
  } finally {
    process.chdir(cwd)
  }
}

test('core imports only db; api, dispatcher and cli import core and db, never each other; no circle at run time', async () => {
  expect(await violations(root, LAYERS)).toEqual([])
})

const dir = makeTestDir('imports-test-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('the rules fire: a core file importing the api, the dispatcher importing the api, and a run-time circle are each reported', async () => {
  const files: Record<string, string> = {
    'api/app.ts': `export const app = 1\n`,
    'core/a.ts': `import { app } from '../api/app'\nimport { b } from './b'\nexport const a = app + b\n`,
    'core/b.ts': `import { a } from './a'\nexport const b = () => a\n`,
    'core/c.ts': `import type { d } from './d'\nexport const c = 1 as unknown as typeof d\n`,
    'core/d.ts': `import { c } from './c'\nexport const d = c\n`,
    'dispatcher/main.ts': `import { app } from '../api/app'\nexport default app\n`,
    'tsconfig.json': '{}',
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const found = await violations(dir, ['api', 'core', 'dispatcher'])
  expect(found.filter((v) => v.startsWith('core-stands-on-db-only'))).toEqual(['core-stands-on-db-only: core/a.ts -> api/app.ts'])
  expect(found.filter((v) => v.startsWith('dispatcher-not-api-or-cli'))).toEqual(['dispatcher-not-api-or-cli: dispatcher/main.ts -> api/app.ts'])
  // a <-> b is a circle at run time (reported once); c <-> d is not (c only imports d's type).
  const circles = found.filter((v) => v.startsWith('no-run-time-circle'))
  expect(circles).toHaveLength(1)
  expect(circles[0]).toMatch(/core\/[ab]\.ts -> core\/[ab]\.ts \(core\/[ab]\.ts -> core\/[ab]\.ts\)/)
})

test('the SQL rule fires: core importing bun:sqlite, a drizzle builder, a drizzle table or an outbox statement is reported; their types are not', async () => {
  const base = join(dir, 'sql')
  const files: Record<string, string> = {
    'db/schema.ts': `export const teams = { name: 'teams' }\nexport type TeamRow = { id: string }\n`,
    'db/outbox/claim.ts': `export const claimDue = () => []\nexport type Claimed = { seq: number }\n`,
    'db/queries/teams.ts': `import { teams } from '../schema'\nexport const getTeam = async () => teams\n`,
    'core/raw.ts': `import { Database } from 'bun:sqlite'\nexport const open = () => new Database(':memory:')\n`,
    'core/builder.ts': `import { eq } from 'drizzle-orm'\nimport { teams } from '../db/schema'\nexport const byId = eq\nexport const t = teams\n`,
    'core/outbox.ts': `import { claimDue } from '../db/outbox/claim'\nexport const c = claimDue\n`,
    'core/fine.ts': `import type { TeamRow } from '../db/schema'\nimport type { Claimed } from '../db/outbox/claim'\nimport { getTeam } from '../db/queries/teams'\nexport const f = (r: TeamRow, c: Claimed) => [r, c, getTeam]\n`,
    'tsconfig.json': '{}',
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(base, path, '..'), { recursive: true })
    writeFileSync(join(base, path), text)
  }
  const found = (await violations(base, ['core', 'db'])).filter((v) => v.startsWith('core-runs-no-sql')).sort()
  expect(found).toEqual([
    'core-runs-no-sql: core/builder.ts -> db/schema.ts',
    'core-runs-no-sql: core/builder.ts -> drizzle-orm',
    'core-runs-no-sql: core/outbox.ts -> db/outbox/claim.ts',
    'core-runs-no-sql: core/raw.ts -> bun:sqlite',
  ])
})

/** The npm packages a bundle of `entrypoints` takes in, by name. */
async function bundledPackages(entrypoints: string[]): Promise<string[]> {
  const built = await Bun.build({ entrypoints, target: 'bun', metafile: true })
  expect(built.success).toBe(true)
  const names = Object.keys(built.metafile!.inputs)
    .filter((p) => p.includes('node_modules/'))
    .map((p) => p.split('node_modules/').at(-1)!.split('/'))
    .map((parts) => (parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!))
  return [...new Set(names)].sort()
}

test('the dispatcher binary (package.json build:dispatcher entrypoints) bundles no Elysia; the api does', async () => {
  const pkg = await Bun.file(join(root, 'package.json')).json()
  const entrypoints = (pkg.scripts['build:dispatcher'] as string).split(' ').filter((w) => w.endsWith('.ts')).map((p) => join(root, p))
  expect(entrypoints.map((p) => p.slice(root.length + 1))).toEqual(['dispatcher/main.ts', 'dispatcher/checkpoint-worker.ts'])
  const dispatcher = await bundledPackages(entrypoints)
  expect(dispatcher).toContain('drizzle-orm')
  expect(dispatcher.filter((p) => p === 'elysia' || p.startsWith('@elysiajs/'))).toEqual([])
  // The same check on the api finds Elysia, so the check can see it where it is.
  expect(await bundledPackages([join(root, 'api/main.ts')])).toContain('elysia')
}, 60_000)
