/**
 * Proof of life for crash recovery in seconds: each started dispatcher holds an exclusive
 * `flock` on a file of its own, `<dir>/<owner>.lock`, for as long as it runs. The kernel drops
 * the lock when the process dies (kill -9, a crash, the machine's OOM killer), so another
 * dispatcher that takes it proves the owner dead, and its leased rows may be claimed at once
 * instead of when their leases expire. A dispatcher that is alive but stuck (SIGSTOP, a long
 * GC) still holds its lock: its rows wait for their leases, as before. A lock that cannot be
 * tested (any error) counts as alive: the lease stays the rule.
 */
import { dlopen, FFIType } from 'bun:ffi'
import { closeSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const LOCK_EX = 2
const LOCK_NB = 4
const SUFFIX = '.lock'

let flockFn: ((fd: number, op: number) => number) | null | undefined
/** libc's flock(2), or null where it cannot be loaded (then no owner is ever proved dead). */
function flock(): ((fd: number, op: number) => number) | null {
  if (flockFn !== undefined) return flockFn
  try {
    const lib = dlopen(process.platform === 'darwin' ? 'libc.dylib' : 'libc.so.6', { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } })
    flockFn = (fd, op) => lib.symbols.flock(fd, op) as number
  } catch {
    flockFn = null
  }
  return flockFn
}

/** Whether the lock file at `path` is held by no process (its owner is dead). */
export function lockIsFree(path: string): boolean {
  const lock = flock()
  if (!lock) return false
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return false // gone: its owner stopped cleanly, nothing of it is leased
  }
  try {
    // Taken here means no one else holds it; closing the descriptor gives it back at once.
    return lock(fd, LOCK_EX | LOCK_NB) === 0
  } finally {
    closeSync(fd)
  }
}

/** One dispatcher's proof of life, and what it knows of the others'. */
export class Liveness {
  /** This dispatcher's owner id: the prefix of every lease token it writes. */
  readonly owner = crypto.randomUUID()
  private fd: number | null = null
  /** Owners proved dead, with when: their rows are free for a lease's length, then their file goes. */
  private readonly dead = new Map<string, number>()
  private deadList: string[] = []

  constructor(private readonly dir: string, private readonly leaseMs: number) {}

  /**
   * Takes the lock. The file is locked under a temporary name and renamed into place, so no
   * other dispatcher ever sees it unlocked (it would take it for a dead one's). Returns false
   * when no lock could be taken (no flock here): the dispatcher then runs on leases alone.
   */
  start(): boolean {
    const lock = flock()
    if (!lock || this.fd !== null) return this.fd !== null
    const tmp = join(this.dir, `.${this.owner}.tmp`)
    let fd: number | null = null
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 })
      fd = openSync(tmp, 'w', 0o600)
      if (lock(fd, LOCK_EX | LOCK_NB) !== 0) throw new Error('flock refused')
      renameSync(tmp, join(this.dir, this.owner + SUFFIX))
    } catch {
      // A directory this process may not write (a read-only mount): leases alone, as before.
      if (fd !== null) closeSync(fd)
      rmSync(tmp, { force: true })
      return false
    }
    this.fd = fd
    return true
  }

  /** Gives the lock up (a clean stop: nothing of this dispatcher is leased any more). */
  stop(): void {
    if (this.fd === null) return
    rmSync(join(this.dir, this.owner + SUFFIX), { force: true })
    closeSync(this.fd)
    this.fd = null
  }

  /**
   * Looks at the other dispatchers' lock files at `now` and returns the owners proved dead. A
   * dead owner's file is removed a lease's length after it was found dead: by then every row it
   * had leased is claimable by its lease anyway.
   */
  scan(now: number): readonly string[] {
    if (this.fd === null) return this.deadList
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch {
      return this.deadList
    }
    for (const name of names) {
      if (!name.endsWith(SUFFIX)) continue
      const owner = name.slice(0, -SUFFIX.length)
      if (owner === this.owner) continue
      const since = this.dead.get(owner)
      if (since === undefined) {
        if (lockIsFree(join(this.dir, name))) this.dead.set(owner, now)
      } else if (now - since > this.leaseMs) {
        rmSync(join(this.dir, name), { force: true })
        rmSync(join(this.dir, `${owner}.port`), { force: true }) // its wake port (db/outbox/wake-listener.ts)
        this.dead.delete(owner)
      }
    }
    this.deadList = [...this.dead.keys()]
    return this.deadList
  }

  /** The owners proved dead at the last scan. */
  get deadOwners(): readonly string[] {
    return this.deadList
  }
}
