/**
 * Test harness: a fresh database per app (a SQLite file, or on the PostgreSQL pass a PostgreSQL
 * database: test/dialect.ts), seeded with a known team, and a small client that sends real HTTP
 * requests through `app.handle`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Database } from 'bun:sqlite'
import type { Db } from '../db/client'
import { createApp } from '../api/app'
import { loadConfig, type Config } from '../core/config'
import { createLogger } from '../core/log'
import { createMetrics } from '../core/metrics'
import { seed } from '../cli/seed'
import { onPg } from './dialect'
import { contextDatabase, openContextDb } from './pg/context-db'

export const TEAM = 'acme'
export const TOKENS = {
  editor: 'tok-editor-000000',
  translator: 'tok-translator-0',
  outsider: 'tok-outsider-000',
  webhooks: 'tok-webhooks-000',
}

/** The seed every API test starts from (contract.md's example, widened). */
export function testSeed(extra: { locales?: string[] } = {}) {
  return {
    teams: [
      {
        id: TEAM,
        workspaceId: 'main',
        locales: extra.locales ?? ['en', 'de', 'fr'],
        defaultLocale: 'en',
        contentTypes: [
          {
            name: 'page', collection: 'pages', urls: true,
            fields: [{ name: 'title', localizable: true }, { name: 'slug', localizable: true }, { name: 'parent' }, { name: 'sku' }],
          },
          { name: 'product', collection: 'products', urls: false, fields: [{ name: 'name', localizable: true }, { name: 'sku' }] },
        ],
        users: [
          { id: 'u-editor', token: TOKENS.editor, capabilities: ['EditContent', 'ChangeLiveContent', 'ManageWebhooks', 'ManageTeam'] },
          { id: 'u-translator', token: TOKENS.translator, capabilities: ['EditContent'] },
          { id: 'u-webhooks', token: TOKENS.webhooks, capabilities: ['ManageWebhooks'] },
        ],
        documents: [
          {
            id: 'pages/home', contentType: 'page', published: true,
            fields: { parent: null }, locales: { en: { title: 'Home', slug: '' } },
          },
        ],
      },
      {
        id: 'other', workspaceId: 'w2', locales: ['en'], defaultLocale: 'en',
        contentTypes: [{ name: 'page', collection: 'pages', urls: true, fields: [{ name: 'title', localizable: true }] }],
        users: [{ id: 'u-outsider', token: TOKENS.outsider, capabilities: ['EditContent', 'ChangeLiveContent', 'ManageWebhooks'] }],
      },
    ],
  }
}

export interface TestContext {
  /** The SQLite database, or on the PostgreSQL pass the pool's handle (`ctx.db.engine` says which). */
  db: Db
  app: ReturnType<typeof createApp>
  config: Config
  /** A temp folder of the test's own, removed by `close()`. */
  dir: string
  /** The SQLite file; on PostgreSQL a path in `dir` where no file is. */
  path: string
  metrics: ReturnType<typeof createMetrics>
  /** Sends a request; `body` objects are JSON-encoded, strings sent raw. */
  call(method: string, path: string, opts?: { token?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers; text: string }>
  /** Closes the database (on PostgreSQL: ends the pool and drops the database) and removes `dir`. */
  close(): Promise<void>
}

export function makeTestDir(prefix = 'content-test-') {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** A new app over a new database (test/dialect.ts says which engine), seeded with `testSeed()`. */
export async function createTestContext(opts: { env?: Record<string, string>; seed?: unknown; logTo?: (line: string) => void } = {}): Promise<TestContext> {
  const dir = makeTestDir()
  const path = join(dir, 'content.db')
  const pg = onPg ? await contextDatabase() : undefined
  const config = loadConfig({ DATABASE_PATH: path, ...(pg ? { DATABASE_URL: pg.url } : {}), LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...opts.env })
  const { db, close } = openContextDb(path, pg, config.databasePoolSize)
  const metrics = createMetrics()
  await seed(db, metrics, opts.seed ?? testSeed())
  const log = opts.logTo ? createLogger('info', 'test', { write: (line: string) => void opts.logTo!(line) }) : createLogger('silent', 'test')
  const app = createApp({ db, config, log, metrics })
  await app.modules
  return {
    db, app, config, dir, path, metrics,
    async call(method, url, { token = TOKENS.editor, body, headers = {} } = {}) {
      const h: Record<string, string> = { ...headers }
      if (token) h.authorization = `Bearer ${token}`
      let payload: string | undefined
      if (body !== undefined) {
        payload = typeof body === 'string' ? body : JSON.stringify(body)
        h['content-type'] ??= 'application/json'
        // A real HTTP client sends the length; the api refuses oversized bodies on it.
        h['content-length'] ??= String(Buffer.byteLength(payload))
      }
      const res = await app.handle(new Request(`http://localhost${url}`, { method, headers: h, body: payload }))
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      return { status: res.status, body: parsed as any, headers: res.headers, text }
    },
    async close() {
      try {
        await close()
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value as NonNullable<T>
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

/**
 * Collects a spawned process's output as it comes (`text` grows); `done` settles when the stream
 * ends. Pipes must be read while the process runs, or a chatty one blocks on a full pipe.
 */
export function collectOutput(stream: ReadableStream<Uint8Array>): { text: string; done: Promise<void> } {
  const out = { text: '', done: Promise.resolve() }
  const decoder = new TextDecoder()
  out.done = (async () => {
    for await (const chunk of stream) out.text += decoder.decode(chunk, { stream: true })
  })()
  return out
}

/**
 * Runs `count` worker processes of `script` (args per worker from `argsOf`, numbered from 1) and
 * returns their exit codes and every `RESULT <json>` line they printed, parsed; `env` over this
 * process's (test/process-db.ts `processEnv`, for workers that open the database). Elysia prints
 * schema warnings on stdout too; only `RESULT ` lines are the workers'.
 */
export async function runWorkers(script: string, count: number, argsOf: (worker: number) => string[], env: Record<string, string> = {}): Promise<{ exitCodes: (number | null)[]; results: any[] }> {
  const procs = Array.from({ length: count }, (_, w) => Bun.spawn(['bun', script, ...argsOf(w + 1)], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'inherit' }))
  const outputs = await Promise.all(procs.map(async (p) => { await p.exited; return new Response(p.stdout).text() }))
  const results = outputs.flatMap((o) => o.split('\n').filter((l) => l.startsWith('RESULT ')).map((l) => JSON.parse(l.slice(7))))
  return { exitCodes: procs.map((p) => p.exitCode), results }
}

const root = join(import.meta.dir, '..')

/**
 * The api as its own process (`bun api/main.ts` unless `argv` says otherwise) on PORT=0 with
 * LOG_LEVEL=info, `env` over this process's environment (or over `baseEnv`); output collected as
 * it comes. `listening()` waits for its `api listening` line (the port it got, its host);
 * `stop()` sends SIGTERM and answers the exit code once its output has ended.
 */
export function spawnApi(env: Record<string, string>, opts: { argv?: string[]; cwd?: string; baseEnv?: Record<string, string | undefined> } = {}) {
  const proc = Bun.spawn(opts.argv ?? ['bun', 'api/main.ts'], {
    cwd: opts.cwd ?? root, env: { ...(opts.baseEnv ?? process.env), PORT: '0', LOG_LEVEL: 'info', ...env }, stdout: 'pipe', stderr: 'pipe',
  })
  const stdout = collectOutput(proc.stdout)
  const stderr = collectOutput(proc.stderr)
  return {
    proc, stdout, stderr,
    listening: () => waitFor(() => logLine(stdout.text, 'api listening'), 20_000, 'api listening') as Promise<{ port: number; host: string }>,
    async stop(): Promise<number> {
      proc.kill('SIGTERM')
      const code = await proc.exited
      await Promise.all([stdout.done, stderr.done])
      return code
    },
  }
}

/**
 * Another connection holding the write lock on the database at `path`, as another process does
 * during a large seed. `release` ends that transaction (ROLLBACK unless told COMMIT) and closes
 * the connection; a second call does nothing, so a `finally` may call it again.
 */
export function holdWriteLock(path: string): { release: (end?: 'ROLLBACK' | 'COMMIT') => void } {
  if (!existsSync(path)) throw new Error(`holdWriteLock: no SQLite file at ${path} (a SQLite-only test: mark it sqliteOnly)`)
  const other = new Database(path)
  other.exec('PRAGMA busy_timeout = 5000')
  other.exec('BEGIN IMMEDIATE')
  let held = true
  return {
    release(end = 'ROLLBACK') {
      if (!held) return
      held = false
      other.exec(end)
      other.close()
    },
  }
}

/** Rows arranged straight in the database, on either engine: test/rows.ts (`insertDelivery` and others). */

/** The first pino line of `text` with message `msg`, parsed; undefined until it is there. */
export const logLine = (text: string, msg: string): Record<string, any> | undefined =>
  text.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.msg === msg)

export const enc = encodeURIComponent

/**
 * The OpenAPI document with every `$ref` to `#/components/schemas/...` replaced by the schema it
 * names (as a client generator resolves them), for tests that look at shapes, not at names.
 */
export function inlineRefs(doc: any): any {
  const walk = (node: any): any => {
    if (Array.isArray(node)) return node.map(walk)
    if (!node || typeof node !== 'object') return node
    if (typeof node.$ref === 'string') return walk(doc.components.schemas[node.$ref.split('/').pop()])
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]))
  }
  return { ...doc, paths: walk(doc.paths) }
}
