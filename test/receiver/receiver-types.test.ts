/**
 * The receiver module's published types, as a receiver's own TypeScript project reads them:
 * `content-service/receiver` resolved through package.json `exports` to the committed
 * `receiver/dist/*.d.ts`, under each module resolution a Node or bundler project uses. Before,
 * the `.d.ts` re-exported `./verify` without an extension: under node16/nodenext every import
 * was silently `any` (with skipLibCheck) or an error (without).
 */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Static } from '@sinclair/typebox'
import type { EventPayload as PortablePayload } from '../../receiver/portable'
import type { EventPayload as PayloadSchema } from '../../core/webhooks/model'
import { makeTestDir } from '../helpers'

// The portable payload type is the schema's type, field for field: checked by `tsc --noEmit` (CI's type
// check) for the source here, and for the committed `dist/payload.d.ts` by the bundler run below.
type Equals<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
export const samePayload: Equals<PortablePayload, Static<typeof PayloadSchema>> = true

const root = join(import.meta.dir, '../..')
const dir = makeTestDir('receiver-types-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
mkdirSync(join(dir, 'node_modules'))
symlinkSync(root, join(dir, 'node_modules', 'content-service'))
writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'a-receiver', type: 'module' }))
writeFileSync(join(dir, 'receiver.ts'), `
import { verifySignature, verifyStandardWebhook, createDedupe, type Dedupe, type EventPayload, type RawBody, type HeaderSource } from 'content-service/receiver'
export const ok: boolean = verifySignature(new ArrayBuffer(2), null, 'a secret of at least thirty-two chars')
export const headers: HeaderSource = { 'webhook-id': 'x', 'webhook-signature': ['v1,a'] }
export const standard: boolean = verifyStandardWebhook(new Uint8Array(2), headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { toleranceSeconds: 60 })
// @ts-expect-error the tolerance is a number of seconds
verifyStandardWebhook('{}', headers, 'whsec_x', { toleranceSeconds: '5m' })
export const body: RawBody = new Uint8Array(2)
export const seen: Dedupe = createDedupe({ max: 10, ttlMs: 1000 })
export const outcome: Promise<'handled' | 'duplicate'> = seen.run('id', async () => {})
export const scope: EventPayload['scope'] = 'site'
export const urls: EventPayload['urls'] = { en: '/about' }
// Each line below must be a type error: the imports are typed, not \`any\`.
// @ts-expect-error a boolean is no string
export const notAny: string = verifySignature('{}', null, 's')
// @ts-expect-error a number is no Dedupe
export const notDedupe: Dedupe = 42
// @ts-expect-error an object is no raw body
verifySignature({ parsed: true }, null, 's')
// @ts-expect-error no such scope
export const badScope: EventPayload['scope'] = 'page'
`)
writeFileSync(join(dir, 'same-payload.ts'), `
import type { EventPayload } from 'content-service/receiver'
import type { EventPayload as Schema } from ${JSON.stringify(join(root, 'core/webhooks/model.ts'))} // the schema's Static type
type Equals<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
export const same: Equals<EventPayload, Schema> = true
`)

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
for (const [module, moduleResolution] of [['nodenext', 'nodenext'], ['node16', 'node16'], ['esnext', 'bundler']] as const) {
  test(`a receiver project type-checks against the published types (module ${module}, moduleResolution ${moduleResolution}, no skipLibCheck)`, async () => {
    const config = join(dir, `tsconfig.${moduleResolution}.json`)
    // Under bundler resolution the project also compares the published payload type with the schema's.
    const bundler = moduleResolution === 'bundler'
    writeFileSync(config, JSON.stringify({
      compilerOptions: { module, moduleResolution, target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [], ...(bundler ? { allowImportingTsExtensions: true } : {}) },
      files: ['receiver.ts', ...(bundler ? ['same-payload.ts'] : [])],
    }))
    const proc = Bun.spawn([process.execPath, tsc, '-p', config], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
    const [out, code] = [await new Response(proc.stdout).text(), await proc.exited]
    expect({ code, out }).toEqual({ code: 0, out: '' })
  }, 60_000)
}

test('a Bun receiver project reading the sources (customConditions ["bun"]) type-checks under nodenext too, startExampleReceiver included', async () => {
  writeFileSync(join(dir, 'bun-receiver.ts'), `
import { verifySignature, startExampleReceiver } from 'content-service/receiver'
export const ok: boolean = verifySignature('{}', null, 'a secret of at least thirty-two chars')
export const start: typeof startExampleReceiver = startExampleReceiver
`)
  const config = join(dir, 'tsconfig.bun-nodenext.json')
  writeFileSync(config, JSON.stringify({
    compilerOptions: {
      module: 'nodenext', moduleResolution: 'nodenext', customConditions: ['bun'], target: 'es2022', strict: true, noEmit: true,
      skipLibCheck: true, types: ['bun'], typeRoots: [join(root, 'node_modules', '@types')],
    },
    files: ['bun-receiver.ts'],
  }))
  const proc = Bun.spawn([process.execPath, tsc, '-p', config], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
  const [out, code] = [await new Response(proc.stdout).text(), await proc.exited]
  expect({ code, out }).toEqual({ code: 0, out: '' })
}, 60_000)
