/**
 * bench/publish.ts's timing on both databases: the real publishes and the bare replay of their
 * statements run in alternating blocks of BLOCK publishes (which side goes first alternating too),
 * so a drift in the shared machine's load hits both sides alike instead of whichever ran second.
 */

export const BLOCK = 100

/** Runs documents [from, to) on one side; a bare SQLite replay is synchronous, the rest async. */
export type Side = (from: number, to: number) => unknown

/** Milliseconds each side spent on its `n` documents, run in alternating blocks. */
export async function alternatingBlocks(n: number, sides: { real: Side; bare: Side }): Promise<{ real: number; bare: number }> {
  const ms = { real: 0, bare: 0 }
  for (let from = 0, block = 0; from < n; from += BLOCK, block++) {
    const to = Math.min(n, from + BLOCK)
    for (const which of block % 2 === 0 ? ['real', 'bare'] as const : ['bare', 'real'] as const) {
      const t0 = performance.now()
      await sides[which](from, to)
      ms[which] += performance.now() - t0
    }
  }
  return ms
}
