/**
 * Two real api processes seeded alike, one on a SQLite file and one on a fresh PostgreSQL
 * database (the seed written to SQLite and copied over with `cli copy-to-postgres`), for racing
 * the same requests on both (test/e2e/pg-races.test.ts).
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openDb } from '../../db/client'
import { seed } from '../../cli/seed'
import { makeTestDir, spawnApi, testSeed, TEAM, TOKENS } from '../helpers'
import { pgDatabase, type PgTestDatabase } from '../pg/harness'

const root = join(import.meta.dir, '../..')

export interface Answer { status: number; body: any; etag: string | null; retryAfter: string | null }
export type Call = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>

export interface RaceApis {
  pg: PgTestDatabase
  /** `call` against the api on each engine. */
  on: { sqlite: Call; pg: Call }
  stop: () => Promise<void>
}

/** Starts both apis; `pgEnv` is added to the PostgreSQL api's environment only. */
export async function startRaceApis(): Promise<RaceApis> {
  const dir = makeTestDir('pg-races-')
  const seeded = join(dir, 'seeded.db')
  for (const path of [seeded, join(dir, 'content.db')]) {
    const db = openDb(path)
    await seed(db, null, testSeed())
    db.$client.close()
  }
  const pg = await pgDatabase()
  const copy = Bun.spawnSync(['bun', 'cli/main.ts', 'copy-to-postgres', '--from', seeded, '--to', pg.url], { cwd: root, env: process.env })
  if (copy.exitCode !== 0) throw new Error(`copy-to-postgres: ${copy.stderr.toString()}`)
  const apis = [spawnApi({ DATABASE_PATH: join(dir, 'content.db') }), spawnApi({ DATABASE_PATH: join(dir, 'never', 'content.db'), DATABASE_URL: pg.url })]
  const [a, b] = await Promise.all(apis.map((x) => x.listening()))
  return {
    pg,
    on: { sqlite: caller(`http://127.0.0.1:${a!.port}`), pg: caller(`http://127.0.0.1:${b!.port}`) },
    async stop() {
      await Promise.all(apis.map((x) => x.stop()))
      await pg.drop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function caller(base: string): Call {
  return async (method, url, body, headers = {}) => {
    const res = await fetch(base + url, {
      method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { authorization: `Bearer ${TOKENS.editor}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    })
    const text = await res.text()
    let parsed: any = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: res.status, body: parsed, etag: res.headers.get('etag'), retryAfter: res.headers.get('retry-after') }
  }
}

/** A page of the seed's team, under the seeded home page. */
export const page = (id: string, title: string) => ({ id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title, slug: id.split('/')[1]! } } })
export const content = `/content/${TEAM}`

/** Starts `n` requests at once (each `make(i)`), and answers them in the order of `i`. */
export async function race(n: number, make: (i: number) => Promise<Answer>): Promise<Answer[]> {
  return await Promise.all(Array.from({ length: n }, (_, i) => make(i)))
}
