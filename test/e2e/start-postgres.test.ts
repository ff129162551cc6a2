/**
 * `bun start` with DATABASE_URL, as a real process on a fresh PostgreSQL database: it migrates
 * the database, seeds the demo team (the database holds no team), runs the api and the dispatcher
 * on it, serves `/health` and a token-authenticated request, makes no SQLite file, and stops with
 * 0 on SIGTERM. Started again on the same database it seeds nothing.
 */
import { afterAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { logLine, makeTestDir, spawnApi, waitFor } from '../helpers'
import { describePg, PG_MIGRATIONS, pgDatabase, type PgTestDatabase } from '../pg/harness'
import { MIGRATIONS_TABLE } from '../../db/pg/migrate'

const dir = makeTestDir('start-pg-test-')
const dbs: PgTestDatabase[] = []
afterAll(async () => {
  await Promise.all(dbs.map((d) => d.drop()))
  rmSync(dir, { recursive: true, force: true })
})

const SEEDED = 'seeded the demo team "acme": its tokens are the public ones the README lists, so use this database for trying things out only'
const PASSWORD = 'pw-never-shown-4242'

describePg('bun start on PostgreSQL', () => {
  test('a fresh database: migrated, the demo team seeded, health and a signed-in request served, dispatcher running, exit 0 on SIGTERM', async () => {
    const d = await pgDatabase({ migrate: false })
    dbs.push(d)
    const url = new URL(d.url)
    url.password = PASSWORD // trust auth: the server ignores it, no output may show it
    const databasePath = join(dir, 'never', 'content.db')
    const start = () => spawnApi({ DATABASE_URL: url.href, DATABASE_PATH: databasePath }, { argv: ['bun', 'start'] })

    const service = start()
    try {
      const { port } = await service.listening()
      const health = await waitFor(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null)
        return res?.ok ? res.json() : null
      }, 20_000, 'api health')
      expect(health).toEqual({ status: 'ok' })
      // The demo team's public token signs in, and the seed's Published Version is there, by cli.
      const versions = await fetch(`http://127.0.0.1:${port}/content/versions/acme?id=pages/about`, { headers: { authorization: 'Bearer tok-editor' } })
      expect(versions.status).toBe(200)
      expect(((await versions.json()) as { rows: { publishedBy: string }[] }).rows.map((r) => r.publishedBy)).toEqual(['cli'])
      const unknown = await fetch(`http://127.0.0.1:${port}/content/versions/acme?id=pages/about`, { headers: { authorization: 'Bearer tok-nobody-here' } })
      expect(unknown.status).toBe(401)
      await waitFor(() => service.stdout.text.includes('dispatcher started'), 20_000, 'dispatcher started')
    } finally {
      expect(await service.stop()).toBe(0)
    }
    const output = service.stdout.text + service.stderr.text
    expect(logLine(service.stdout.text, SEEDED)).toMatchObject({ level: 40, component: 'start', databaseUrl: url.href.replace(PASSWORD, '***') })
    expect(output).toContain('api stopping')
    expect(output).toContain('dispatcher stopping')
    expect(output).not.toContain(PASSWORD)
    expect(output).not.toContain('tok-')
    expect(existsSync(databasePath)).toBe(false)

    const sql = new SQL({ url: d.url, max: 1 })
    try {
      const [applied] = await sql.unsafe(`SELECT count(*)::int AS n FROM ${MIGRATIONS_TABLE}`)
      expect(applied.n).toBe(PG_MIGRATIONS)
      const [teams] = await sql.unsafe(`SELECT count(*)::int AS n FROM teams`)
      expect(teams.n).toBe(1)

      // Started again: the database holds a team, so nothing is seeded and no version is added.
      const revisions = async () => (await sql.unsafe(`SELECT count(*)::int AS n FROM revisions`))[0].n
      const before = await revisions()
      const again = start()
      try {
        await again.listening()
      } finally {
        expect(await again.stop()).toBe(0)
      }
      expect(again.stdout.text).not.toContain(SEEDED)
      expect(await revisions()).toBe(before)
    } finally {
      await sql.close()
    }
  }, 90_000)
})
