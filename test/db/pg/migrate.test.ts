/**
 * db/pg/migrate.ts on the real server: several processes starting at once on a fresh database all
 * succeed and apply each migration once; a process finding the lock held waits for it; every
 * text column compares by bytes, as on SQLite.
 */
import { afterAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { join } from 'node:path'
import { describePg, pgDatabase, type PgTestDatabase } from '../../pg/harness'
import { MIGRATION_LOCK_KEY, MIGRATIONS_TABLE, pgMigrationsFolder } from '../../../db/pg/migrate'

const worker = join(import.meta.dir, 'migrate-worker.ts')
const journal = (await Bun.file(join(pgMigrationsFolder, 'meta/_journal.json')).json()) as { entries: { tag: string }[] }
const dbs: PgTestDatabase[] = []
afterAll(() => Promise.all(dbs.map((d) => d.drop())))

async function fresh(): Promise<PgTestDatabase> {
  const d = await pgDatabase({ migrate: false })
  dbs.push(d)
  return d
}

const spawnWorker = (url: string, n: number, startAt: number) =>
  Bun.spawn(['bun', worker, String(n)], { env: { ...process.env, DATABASE_URL: url, START_AT: String(startAt) }, stdout: 'pipe', stderr: 'pipe' })

async function outcome(p: ReturnType<typeof spawnWorker>) {
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { code, stderr, last: stdout.trim().split('\n').at(-1) }
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const sql = new SQL({ url, max: 1 })
  try {
    return [...(await sql.unsafe(text))] as T[]
  } finally {
    await sql.close()
  }
}

describePg('PostgreSQL migrations', () => {
  test('five processes started at once on a fresh database all succeed; each migration is applied once', async () => {
    const { url } = await fresh()
    const startAt = Date.now() + 1500 // past the workers' own startup
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => outcome(spawnWorker(url, n, startAt))))
    expect(results.map((r) => ({ code: r.code, stderr: r.stderr, ok: r.last?.startsWith('{') ? JSON.parse(r.last).ok : r.last }))).toEqual(Array(5).fill({ code: 0, stderr: '', ok: true }))
    const applied = await query<{ hash: string; n: number }>(url, `SELECT hash, count(*)::int AS n FROM ${MIGRATIONS_TABLE} GROUP BY hash`)
    expect(applied.length).toBe(journal.entries.length)
    expect(applied.every((r) => r.n === 1)).toBe(true)
    const tables = await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`)
    expect(tables[0]!.n).toBe(16)
  }, 60_000)

  test('a process that finds the lock held waits, and migrates once it is given back', async () => {
    const { url } = await fresh()
    const holder = new SQL({ url, max: 1 })
    const conn = await holder.reserve()
    await conn.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`)
    const p = spawnWorker(url, 1, 0)
    const lines = p.stdout.getReader()
    const first = new TextDecoder().decode((await lines.read()).value)
    expect(first).toBe('waiting\n')
    const applied = await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`)
    expect(applied[0]!.n).toBe(0) // nothing migrated while the lock is held
    await conn.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`)
    conn.release()
    await holder.close()
    let rest = ''
    for (let chunk = await lines.read(); !chunk.done; chunk = await lines.read()) rest += new TextDecoder().decode(chunk.value)
    expect(await p.exited).toBe(0)
    expect(JSON.parse(rest.trim())).toEqual({ ok: true, waited: true })
  }, 60_000)

  test('a second migration of the same database applies nothing; every text column compares by bytes', async () => {
    const { url } = await fresh()
    for (const n of [1, 2]) expect((await outcome(spawnWorker(url, n, 0))).code).toBe(0)
    const applied = await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM ${MIGRATIONS_TABLE}`)
    expect(applied[0]!.n).toBe(journal.entries.length)
    const collations = await query<{ collation: string | null; n: number }>(
      url, `SELECT collation_name AS collation, count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text' GROUP BY 1`,
    )
    expect(collations).toEqual([{ collation: 'C', n: expect.any(Number) }])
  }, 60_000)
})
