/**
 * Records every statement a piece of code sends through a Bun.sql client, to replay them bare
 * (bench/publish.ts). `recording(sql, log)` answers a client that behaves as `sql` and appends to
 * `log` each `unsafe(text, params)` and each tagged-template query, also inside `begin` and
 * `savepoint` (whose callbacks get a recording client too). `replay` runs a record again on
 * another client, in the same order, one awaited statement after the other.
 */
import type { SQL } from 'bun'

export type Statement =
  | { kind: 'unsafe'; text: string; params: unknown[] }
  | { kind: 'template'; strings: TemplateStringsArray; values: unknown[] }

type Client = SQL & Record<string, unknown>

/** `sql` recording into `log` (a Proxy: every other property is the client's own). */
export function recording<T extends object>(sql: T, log: Statement[]): T {
  return new Proxy(sql, {
    apply(target, thisArg, args: unknown[]) {
      const [strings, ...values] = args
      // A tagged template (`sql\`...\``): a statement. `sql(rows)` helpers are fragments, not statements.
      if (Array.isArray(strings) && 'raw' in strings) log.push({ kind: 'template', strings: strings as unknown as TemplateStringsArray, values })
      return Reflect.apply(target as (...a: unknown[]) => unknown, thisArg, args)
    },
    get(target, prop, receiver) {
      const client = target as unknown as Client
      if (prop === 'unsafe') {
        return (text: string, params: unknown[] = []) => {
          log.push({ kind: 'unsafe', text, params })
          return client.unsafe(text, params)
        }
      }
      if (prop === 'begin' || prop === 'savepoint') {
        return (...args: unknown[]) => {
          const fn = args.pop() as (tx: unknown) => unknown
          return (client[prop] as (...a: unknown[]) => unknown)(...args, (tx: object) => fn(recording(tx, log)))
        }
      }
      const value = Reflect.get(target, prop, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** Runs `statements` on `sql` (a transaction's client), one after the other. */
export async function replay(sql: SQL, statements: readonly Statement[]) {
  for (const s of statements) {
    if (s.kind === 'unsafe') await sql.unsafe(s.text, s.params)
    else await sql(s.strings, ...s.values)
  }
}

/** A statement's text, `$n` in place of a template's values (for printing). */
export const statementText = (s: Statement) =>
  s.kind === 'unsafe' ? s.text : s.strings.reduce((text, part, i) => `${text}$${i}${part}`)
