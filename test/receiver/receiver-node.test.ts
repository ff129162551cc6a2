/**
 * Receivers on Node (a Next.js revalidation route, an Express app) import the receiver helpers
 * without a TypeScript step: `package.json` exports `./receiver` to Node as the committed build
 * `receiver/dist/index.js`. Node itself imports the package through that exports map here, and
 * a fresh build of the current sources must pass the same checks, so the committed build cannot
 * silently fall behind them (rebuild with `bun run build:receiver`).
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sign } from '../../core/delivery/sign'
import { makeTestDir } from '../helpers'

const root = join(import.meta.dir, '../..')
const dir = makeTestDir('receiver-node-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
mkdirSync(join(dir, 'node_modules'))
symlinkSync(root, join(dir, 'node_modules', 'content-service'))

const body = '{"v":2,"eventType":"content.published","eventId":"0193a6c2-7f00-7000-8000-000000000001"}'
const secret = 'whsec_node_receiver_test_secret_0123456789'
const cases = {
  good: sign(body, secret),
  wrongSecret: sign(body, 'another secret'),
  upperHex: sign(body, secret).toUpperCase().replace('SHA256=', 'sha256='),
  noPrefix: sign(body, secret).slice('sha256='.length),
  missing: null,
}

/** Runs a Node ES module that imports the helpers from `from` and prints what they answer. */
async function onNode(from: string) {
  const script = join(dir, `check-${Math.random().toString(36).slice(2)}.mjs`)
  writeFileSync(script, `
    import { verifySignature, createDedupe } from ${JSON.stringify(from)}
    const cases = ${JSON.stringify(cases)}
    const body = ${JSON.stringify(body)}
    const verdicts = Object.fromEntries(Object.entries(cases).map(([k, h]) => [k, verifySignature(body, h, ${JSON.stringify(secret)})]))
    verdicts.distinctOnce = verifySignature(body, [cases.good], ${JSON.stringify(secret)})
    verdicts.distinctTwice = verifySignature(body, [cases.good, cases.good], ${JSON.stringify(secret)})
    verdicts.bytes = verifySignature(new TextEncoder().encode(body), cases.good, ${JSON.stringify(secret)})
    verdicts.arrayBuffer = verifySignature(new TextEncoder().encode(body).buffer, cases.good, ${JSON.stringify(secret)})
    try { verifySignature(body, cases.good, ''); verdicts.emptySecret = 'accepted' } catch (e) { verdicts.emptySecret = e.constructor.name }
    const once = createDedupe()
    verdicts.run = [await once.run('x', () => {}), await once.run('x', () => {})]
    let t = 0
    const seen = createDedupe({ max: 2, ttlMs: 100, now: () => t })
    const dedupe = [seen.firstTime('a'), seen.firstTime('a'), seen.firstTime('b'), seen.firstTime('c'), seen.firstTime('a'), seen.size]
    t = 1000
    dedupe.push(seen.size, seen.firstTime('c'))
    console.log(JSON.stringify({ verdicts, dedupe }))
  `)
  const proc = Bun.spawn(['node', script], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited]
  expect({ code, err }).toEqual({ code: 0, err: '' })
  return JSON.parse(out)
}

const expected = {
  verdicts: { good: true, wrongSecret: false, upperHex: false, noPrefix: false, missing: false, distinctOnce: true, distinctTwice: false, bytes: true, arrayBuffer: true, emptySecret: 'TypeError', run: ['handled', 'duplicate'] },
  // a new; a repeat; b new; c new (evicts a, the oldest); a new again; two kept; none left within the TTL later; c new again
  dedupe: [true, false, true, true, true, 2, 0, true],
}

test('Node imports content-service/receiver (the committed build) and it verifies and deduplicates', async () => {
  expect(await onNode('content-service/receiver')).toEqual(expected)
}, 30_000)

test('a fresh build of the current sources answers the same (the committed build is not stale)', async () => {
  const out = await Bun.build({ entrypoints: [join(root, 'receiver/portable.ts')], target: 'node', format: 'esm', outdir: join(dir, 'fresh') })
  expect(out.success).toBe(true)
  expect(await onNode(join(dir, 'fresh', 'portable.js'))).toEqual(expected)
}, 30_000)
