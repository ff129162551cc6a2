/**
 * What the dispatcher end-to-end tests share: an app with one webhook to a real receiver, and a
 * way to start the REAL dispatcher process on its database (the SQLite file, or on the
 * PostgreSQL pass the context's PostgreSQL database); everything a test starts is stopped after it.
 */
import { afterEach, expect } from 'bun:test'
import { createTestContext, TEAM, TOKENS, type TestContext } from '../helpers'
import { processEnv } from '../process-db'
import { rows } from '../rows'
import { startReceiver, type Answer, type TestReceiver } from '../test-receiver'

export const root = new URL('../..', import.meta.url).pathname

type Proc = ReturnType<typeof Bun.spawn>
/** Stops `p` with `signal`, then SIGKILL if it is still there 3 s later. */
export async function kill(p: Proc, signal: NodeJS.Signals = 'SIGTERM') {
  if (p.exitCode !== null || p.signalCode !== null) return
  p.kill(signal)
  const exited = await Promise.race([p.exited.then(() => true), Bun.sleep(3000).then(() => false)])
  if (!exited) p.kill('SIGKILL')
  await p.exited
}

/**
 * Registers the calling file's clean-up after each test and returns `cleanup` (what to undo,
 * last first) with `setup`, whose app, receiver and processes that clean-up stops.
 */
export function dispatcherFixture() {
  const cleanup: (() => void | Promise<void>)[] = []
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn()
  })
  async function setup(opts: { answers?: Answer[]; env?: Record<string, string>; events?: string[] } = {}) {
    const ctx: TestContext = await createTestContext()
    const rx: TestReceiver = startReceiver(opts.answers)
    cleanup.push(() => ctx.close(), () => rx.stop())
    const res = await ctx.call('POST', `/teams/${TEAM}/webhooks`, {
      token: TOKENS.webhooks, body: { label: 'e2e', provider: 'custom', target: rx.url, events: opts.events ?? ['content.published', 'content.unpublished'] },
    })
    expect(res.status).toBe(201)
    const env = {
      PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...processEnv(ctx), LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DISPATCHER_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '300', DISPATCHER_LEASE_MS: '1000',
      SITE_CHANGE_QUIET_MS: '300', SITE_CHANGE_MAX_HOLD_MS: '60000', ...opts.env,
    }
    const spawn = (cmd = ['bun', 'dispatcher/main.ts'], cwd = root) => {
      const p = Bun.spawn(cmd, { cwd, env, stdout: 'ignore', stderr: 'inherit' })
      cleanup.push(() => kill(p, 'SIGKILL'))
      return p
    }
    const publish = async (id: string, slug = id.split('/').pop()!) => {
      const doc = { id, contentType: 'page', fields: { parent: 'pages/home' }, locales: { en: { title: id, slug } } }
      expect((await ctx.call('POST', `/content/${TEAM}`, { body: doc })).status).toBe(200)
      const res = await ctx.call('POST', `/content/publish/${TEAM}`, { body: { ids: [id] } })
      expect(res.body[0].status).toBe(0)
    }
    const attempts = () => rows(ctx.db, 'SELECT attempt, status_code AS "statusCode", error FROM delivery_attempts ORDER BY id')
    return { ctx, rx, secret: res.body.secret as string, hookId: res.body.id as string, spawn, publish, attempts, env }
  }
  return { cleanup, setup }
}
