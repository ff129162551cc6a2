/**
 * Browser tests' harness: the REAL api and dispatcher processes over a temp database seeded
 * with the test team (on the PostgreSQL pass, TEST_DIALECT=pg, the test context's own fresh
 * database, which the processes open through DATABASE_URL and `stop()` drops), a real webhook
 * receiver on 127.0.0.1, and Debian's Chromium driven by playwright-core with a fresh profile.
 * Without a Chromium the tests are skipped with the reason printed; under CI=true a missing
 * browser is a failure.
 */
import { afterAll, beforeAll } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { createTestContext, spawnApi, type TestContext } from '../helpers'
import { startReceiver, type TestReceiver } from '../test-receiver'

const root = new URL('../..', import.meta.url).pathname
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Why the browser tests cannot run here, or null. Under CI=true a missing browser throws instead. */
export function browserMissing(): string | null {
  if (existsSync(CHROMIUM)) return null
  const reason = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`
  if (process.env.CI === 'true') throw new Error(`browser tests cannot run under CI: ${reason}`)
  console.log(`skipping the browser tests: ${reason}`)
  return reason
}

/** Chromium's flags: headless, quiet, no outside name resolution; `extra` adds to them. */
export const chromiumArgs = (extra: string[] = []) => [
  // No name resolves but the local ones: the app must work on a machine with no internet.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', ...extra,
]

export interface Stack {
  ctx: TestContext
  base: string
  rx: TestReceiver
  browser: BrowserContext
  page: (width?: number) => Promise<Page>
  stop(): Promise<void>
}

type Proc = ReturnType<typeof Bun.spawn>
async function kill(p: Proc) {
  if (p.exitCode !== null || p.signalCode !== null) return
  p.kill('SIGTERM')
  if (!(await Promise.race([p.exited.then(() => true), Bun.sleep(3000).then(() => false)]))) p.kill('SIGKILL')
  await p.exited
}

/**
 * Starts the api, the dispatcher, a receiver and a browser over one fresh database. What has
 * started is undone in reverse by `stop()`, or at once when a later step fails (no api process
 * or context database outlives a failed start).
 */
export async function startStack(opts: { seed?: unknown; chromiumExtra?: string[]; receiverAnswers?: { status: number; body?: string }[] } = {}): Promise<Stack> {
  const undo: (() => unknown)[] = []
  async function stop() {
    let failure: unknown
    for (const step of undo.splice(0).reverse()) await Promise.resolve().then(step).catch((e) => void (failure ??= e))
    if (failure) throw failure
  }
  try {
    const ctx = await createTestContext({ seed: opts.seed })
    undo.push(() => ctx.close())
    const rx = startReceiver(opts.receiverAnswers ?? [{ status: 200, body: 'thanks from the receiver' }])
    undo.push(() => rx.stop())
    const where: Record<string, string> = ctx.config.databaseUrl ? { DATABASE_URL: ctx.config.databaseUrl } : {}
    const env = { DATABASE_PATH: ctx.path, ...where, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn', DISPATCHER_POLL_MS: '100', WEBHOOK_TIMEOUT_MS: '2000', SITE_CHANGE_QUIET_MS: '300' }
    const api = spawnApi({ ...env, LOG_LEVEL: 'info' })
    undo.push(() => api.stop())
    const { port, databaseUrl } = (await api.listening()) as { port: number; databaseUrl?: string }
    // The api says where it opened: the context's database, never a SQLite file beside it.
    const opened = databaseUrl ? new URL(databaseUrl).pathname : 'the SQLite file'
    const expected = ctx.config.databaseUrl ? new URL(ctx.config.databaseUrl).pathname : 'the SQLite file'
    if (opened !== expected) throw new Error(`the api opened ${opened}, not the test context's ${expected}`)
    const dispatcher = Bun.spawn(['bun', 'dispatcher/main.ts'], { cwd: root, env: { ...process.env, ...env }, stdout: 'ignore', stderr: 'inherit' })
    undo.push(() => kill(dispatcher))
    const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'))
    undo.push(() => rmSync(profile, { recursive: true, force: true }))
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: chromiumArgs(opts.chromiumExtra), viewport: { width: 1280, height: 900 },
    })
    undo.push(() => browser.close().catch(() => {}))
    return {
      ctx, base: `http://127.0.0.1:${port}`, rx, browser, stop,
      async page(width = 1280) {
        const page = await browser.newPage()
        await page.setViewportSize({ width, height: width < 600 ? 844 : 900 })
        return page
      },
    }
  } catch (e) {
    await stop().catch(() => {})
    throw e
  }
}

/**
 * One stack for the calling file's tests: started before them (unless the browser is missing,
 * see `fx.missing`) and stopped after them. `fx.s` is that file's own stack.
 */
export function stackFixture() {
  const fx = { missing: browserMissing(), s: undefined as unknown as Stack }
  beforeAll(async () => {
    if (!fx.missing) fx.s = await startStack()
  }, 60_000)
  afterAll(async () => { await fx.s?.stop() })
  return fx
}

/** Signs in on the sign-in page with `token`, as a person would: paste and press the button. */
export async function signIn(page: Page, base: string, token: string) {
  await page.goto(`${base}/`)
  await page.getByLabel('Bearer token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByText(/Signed in as/).waitFor()
}
