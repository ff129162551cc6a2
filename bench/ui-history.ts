/**
 * The History drawer in Chromium: time from clicking "History" to its first page of version
 * rows on screen, for a document with 20 Published Versions and one with 20,000, measured in
 * the same run against the real api process. Goal: ratio at most 1.5. Needs a Chromium
 * (/usr/bin/chromium or CHROMIUM_PATH).
 *
 *   bun bench/ui-history.ts [bigVersions=20000] [rounds=15]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { browserMissing, chromiumArgs, CHROMIUM } from '../test/browser/harness'
import { fmt, summarize } from './util'
import { addVersions, BENCH_TOKEN, openVersionsDb } from './versions-db'

const BIG = Number(process.argv[2] ?? 20_000)
const ROUNDS = Number(process.argv[3] ?? 15)
if (browserMissing()) process.exit(1)

const { path, db, metrics } = await openVersionsDb('ui-history')
const t0 = performance.now()
for (const [id, n] of [['pages/small', 20], ['pages/big', BIG]] as const) await addVersions(db, metrics, id, n)
db.$client.close()
console.log(`built 20 + ${BIG} versions in ${fmt((performance.now() - t0) / 1000, 1)} s`)

const root = new URL('..', import.meta.url).pathname
const api = Bun.spawn(['bun', 'api/main.ts'], { cwd: root, env: { ...process.env, PORT: '0', DATABASE_PATH: path, LOG_LEVEL: 'info' }, stdout: 'pipe', stderr: 'inherit' })
let out = ''
const reader = api.stdout.getReader()
let port = 0
while (!port) {
  const { value, done } = await reader.read()
  if (done) throw new Error('the api stopped')
  out += new TextDecoder().decode(value)
  port = Number(/"port":(\d+)/.exec(out)?.[1] ?? 0)
}
const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'))
const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: chromiumArgs() })
try {
  const base = `http://127.0.0.1:${port}`
  const page = await browser.newPage()
  await page.goto(`${base}/`)
  await page.getByLabel('Bearer token').fill(BENCH_TOKEN)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByText(/Signed in as/).waitFor()
  const samples: Record<string, number[]> = { 'pages/small': [], 'pages/big': [] }
  for (let r = 0; r < ROUNDS + 2; r++) {
    for (const id of Object.keys(samples)) {
      await page.goto(`${base}/app/t/t/edit?id=${encodeURIComponent(id)}`)
      await page.getByLabel('title (en)').waitFor()
      const t = performance.now()
      await page.getByRole('button', { name: 'History' }).click()
      await page.getByRole('list', { name: 'Published Versions' }).getByRole('listitem').first().waitFor()
      if (r >= 2) samples[id]!.push(performance.now() - t) // two warm-up rounds
    }
  }
  const small = summarize(samples['pages/small']!)
  const big = summarize(samples['pages/big']!)
  console.log(`20 versions:     p50 ${fmt(small.p50)} ms  p99 ${fmt(small.p99)} ms`)
  console.log(`${BIG} versions: p50 ${fmt(big.p50)} ms  p99 ${fmt(big.p99)} ms`)
  console.log(`ratio ${BIG} / 20 (p50): ${fmt(big.p50 / small.p50)}  (goal <= 1.5)`)
} finally {
  await browser.close()
  rmSync(profile, { recursive: true, force: true })
  api.kill('SIGTERM')
  await api.exited
}
