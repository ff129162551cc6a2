/**
 * CPU time of a process per thread group, read from /proc (Linux; null elsewhere), so the
 * dispatch bench can say where a delivery's CPU goes: the JavaScript event loop (the main
 * thread), Bun's HTTP client thread, and the rest (JIT, GC, the checkpoint worker).
 */
import { readdirSync, readFileSync } from 'node:fs'

export interface ThreadCpu {
  loop: number
  http: number
  other: number
}

const CLOCK_TICKS = 100 // USER_HZ on Linux

/** User + system CPU of each thread group of `pid` so far, in ms. */
export function threadCpuMs(pid: number): ThreadCpu | null {
  try {
    const out: ThreadCpu = { loop: 0, http: 0, other: 0 }
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let stat: string
      try {
        stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      } catch {
        continue // the thread ended between the listing and the read
      }
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
      out[Number(tid) === pid ? 'loop' : name === 'HTTP Client' ? 'http' : 'other'] += ms
    }
    return out
  } catch {
    return null
  }
}

/** CPU between two readings, in µs per item. */
export function perItemUs(before: ThreadCpu | null, after: ThreadCpu | null, items: number): ThreadCpu | null {
  if (!before || !after) return null
  const us = (k: keyof ThreadCpu) => ((after[k] - before[k]) * 1000) / items
  return { loop: us('loop'), http: us('http'), other: us('other') }
}

/** CPU of each thread of `pid` so far, in ms, summed by thread name (BENCH_THREADS=1 in bench/dispatch.ts). */
export function cpuByThreadName(pid: number): Record<string, number> {
  const out: Record<string, number> = {}
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
        const name = Number(tid) === pid ? '(main)' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        out[name] = (out[name] ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
      } catch {}
    }
  } catch {}
  return out
}
