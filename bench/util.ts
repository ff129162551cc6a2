/** Small helpers shared by the bench scripts: a temp database and percentiles. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A database path in a fresh temp folder, removed when the process exits. */
export function tempDbPath(name: string) {
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`))
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  return join(dir, 'content.db')
}

export function percentile(sortedMs: number[], p: number) {
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor((p / 100) * sortedMs.length))]!
}

export function summarize(samplesMs: number[]) {
  const s = [...samplesMs].sort((a, b) => a - b)
  return { p50: percentile(s, 50), p99: percentile(s, 99), n: s.length }
}

export const fmt = (n: number, digits = 2) => n.toFixed(digits)
