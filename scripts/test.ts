/**
 * `bun run test`: the suite on SQLite, then the files that build a test context again on
 * PostgreSQL (TEST_DIALECT=pg, test/pg-pass.ts says which) when TEST_DATABASE_URL is set.
 * Extra arguments go to both passes (`bun run test test/api/list.test.ts`); on the PostgreSQL
 * pass a path filter narrows its file list. Without TEST_DATABASE_URL the PostgreSQL pass is
 * skipped with the reason, except under CI=true, where that fails the run. Ends with the
 * sum of both passes as `N pass` / `N fail` lines (.ci/run reads the last ones) and exits
 * non-zero when either pass fails.
 */
import { PG_PASS_SKIPS, pgPassFiles, root } from '../test/pg-pass'

const TIMEOUT = ['--timeout', '60000']
/** bun test's flags that take the next argument as their value. */
const VALUED = new Set(['-t', '--test-name-pattern', '--timeout', '--rerun-each', '--preload', '--reporter', '--reporter-outfile', '--coverage-reporter', '--coverage-dir', '--seed'])

type Result = { code: number; pass: number; fail: number }

async function pass(label: string, args: string[], env: Record<string, string | undefined>): Promise<Result> {
  console.log(`\n=== ${label} ===`)
  const proc = Bun.spawn(['bun', 'test', ...TIMEOUT, ...args], { cwd: root, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  let tail = ''
  const forward = async (stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      out.write(chunk)
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4000)
    }
  }
  await Promise.all([forward(proc.stdout, process.stdout), forward(proc.stderr, process.stderr)])
  const code = await proc.exited
  const count = (word: string) => Number(tail.match(new RegExp(`^ *(\\d+) ${word}$`, 'gm'))?.at(-1)?.trim().split(' ')[0] ?? 0)
  return { code, pass: count('pass'), fail: count('fail') }
}

function splitArgs(args: string[]): { flags: string[]; filters: string[] } {
  const flags: string[] = []
  const filters: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a.startsWith('-')) {
      flags.push(a)
      if (VALUED.has(a) && i + 1 < args.length) flags.push(args[++i]!)
    } else filters.push(a)
  }
  return { flags, filters }
}

const args = process.argv.slice(2)
const results: Result[] = [await pass('SQLite pass', args, { TEST_DIALECT: 'sqlite' })]

const url = process.env.TEST_DATABASE_URL
if (!url) {
  const why = 'TEST_DATABASE_URL is not set (e.g. TEST_DATABASE_URL=postgres://root@127.0.0.1:5432/test)'
  if (process.env.CI === 'true') {
    console.log(`\n=== PostgreSQL pass: not run, and CI=true runs it: ${why} ===`)
    results.push({ code: 1, pass: 0, fail: 1 })
  } else console.log(`\n=== PostgreSQL pass skipped: ${why} ===`)
} else {
  const { flags, filters } = splitArgs(args)
  const files = pgPassFiles().filter((f) => filters.length === 0 || filters.some((x) => f.includes(x.replace(/^\.\//, ''))))
  const skipped = Object.entries(PG_PASS_SKIPS).filter(([f]) => filters.length === 0 || filters.some((x) => f.includes(x.replace(/^\.\//, ''))))
  for (const [f, s] of skipped) console.log(`PostgreSQL pass leaves out ${f} (${s.why}): ${s.reason}`)
  if (files.length === 0) console.log('\n=== PostgreSQL pass: none of the files asked for builds a test context ===')
  else {
    const run = `r${Date.now().toString(36)}${process.pid}`
    try {
      results.push(await pass(`PostgreSQL pass (${files.length} files, TEST_DIALECT=pg)`, [...flags, ...files.map((f) => `./${f}`)], { TEST_DIALECT: 'pg', TEST_PG_RUN: run }))
    } finally {
      process.env.TEST_PG_RUN = run
      const { dropRunDatabases, PG_RUN } = await import('../test/pg/context-db')
      const left = await dropRunDatabases(PG_RUN)
      if (left > 0) console.log(`PostgreSQL pass: dropped ${left} database(s) a test left behind (a ctx.close() not awaited)`)
    }
  }
}

const total = results.reduce((t, r) => ({ pass: t.pass + r.pass, fail: t.fail + r.fail }), { pass: 0, fail: 0 })
console.log(`\nboth passes: ${results.map((r, i) => `${i === 0 ? 'SQLite' : 'PostgreSQL'} ${r.pass} pass ${r.fail} fail`).join(', ')}`)
console.log(` ${total.pass} pass\n ${total.fail} fail`)
process.exit(results.some((r) => r.code !== 0) ? 1 : 0)
