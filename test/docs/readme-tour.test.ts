/**
 * The README's five-minute tour, run as a reader runs it: its shell blocks taken from the README
 * itself, against `bun start` on a fresh database, with only the api's port and the receiver's
 * port changed to free ones. The tour must publish, list, preview, restore German only, snapshot,
 * and end with a delivery the example receiver printed and the delivery log shows delivered.
 */
import { afterAll, expect, test } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { collectOutput, makeTestDir, spawnApi } from '../helpers'

const root = join(import.meta.dir, '../..')
const dir = makeTestDir('readme-tour-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The shell blocks of the README section "A five-minute tour", in order. */
function tourBlocks(readme: string): string[] {
  const start = readme.indexOf('\n## A five-minute tour\n')
  expect(start).toBeGreaterThan(-1)
  const end = readme.indexOf('\n## ', start + 1)
  const section = readme.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
}

const freePort = () => {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

test('the README tour runs against bun start and ends with a delivered, printed webhook', async () => {
  const [startBlock, ...steps] = tourBlocks(readFileSync(join(root, 'README.md'), 'utf8'))
  // The first block starts the service; the test starts it the same way, on a temp file and a free port.
  expect(startBlock!.trim()).toBe('WEBHOOK_ALLOW_PRIVATE_TARGETS=true bun start')
  expect(steps.length).toBeGreaterThanOrEqual(6)
  const service = spawnApi({ DATABASE_PATH: join(dir, 'content.db'), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, { argv: ['bun', 'start'] })
  try {
    const { port } = await service.listening()
    const receiverPort = freePort()
    let script = steps.join('\n')
    expect(script).toContain('http://localhost:3000')
    expect(script).toContain('8787')
    script = script.replaceAll('http://localhost:3000', `http://localhost:${port}`).replaceAll('8787', String(receiverPort))
    // The receiver runs in the background of the tour's shell: stop it however the script ends.
    const shell = Bun.spawn(['bash', '-c', `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${script}`], {
      cwd: root, env: { ...process.env, PORT: '', WEBHOOK_SECRET: '' }, stdout: 'pipe', stderr: 'pipe',
    })
    const out = collectOutput(shell.stdout)
    const err = collectOutput(shell.stderr)
    const code = await shell.exited
    await Promise.all([out.done, err.done])
    expect({ code, stderr: err.text }).toEqual({ code: 0, stderr: '' })
    // Restore: German back from the seed's version, English as the draft had it, German dirty.
    expect(out.text).toContain('"locales":{"en":{"title":"About the Acme company","slug":"about"},"de":{"title":"Über uns","slug":"ueber-uns"}},"__dirtyLocales":["de"]')
    expect(out.text).toContain('"name":"German restored","status":"active"')
    // The example receiver printed the event's paths, and the delivery log says delivered.
    expect(out.text).toContain('{"msg":"refresh","eventType":"content.published","scope":"document","urls":{"en":"/about","de":"/ueber-uns"},"previousUrls":[]}')
    expect(out.text).toMatch(/"eventType":"content\.published","status":"delivered".*"statusCode":200/)
    // The seed's version, the tour's two publishes and the publish of the restored draft.
    const versions = await fetch(`http://localhost:${port}/content/versions/acme?id=pages/about`, { headers: { authorization: 'Bearer tok-editor' } })
    expect(((await versions.json()) as { rows: unknown[] }).rows).toHaveLength(4)
  } finally {
    await service.stop()
  }
}, 60_000)
