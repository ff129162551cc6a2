/**
 * Stop signals of the service's processes (api, dispatcher, `bun start`): the first one stops
 * cleanly, another one SECOND_SIGNAL_AFTER_MS or more later exits at once.
 *
 * One Ctrl-C may arrive twice within a millisecond or so: the terminal signals its whole
 * foreground process group, and `bun run` (`bun start`, `bun run api`) passes its own copy on
 * to the script it runs. A signal that close to the first is that same Ctrl-C, not a second one.
 */
export const SECOND_SIGNAL_AFTER_MS = 1000

export interface StopHandlers {
  /** The first signal: stop cleanly. */
  stop: (signal: NodeJS.Signals) => void
  /** Another one at least SECOND_SIGNAL_AFTER_MS later: exit now. */
  force: (signal: NodeJS.Signals) => void
}

/** Sends SIGINT, SIGTERM (and any of `extra`) to `handlers`: the first to `stop`, a later one to `force`. */
export function onStopSignals(handlers: StopHandlers, extra: NodeJS.Signals[] = []): void {
  let firstAt: number | null = null
  const on = (signal: NodeJS.Signals) => {
    const at = Date.now()
    if (firstAt === null) {
      firstAt = at
      handlers.stop(signal)
    } else if (at - firstAt >= SECOND_SIGNAL_AFTER_MS) {
      handlers.force(signal)
    }
  }
  for (const signal of ['SIGINT', 'SIGTERM', ...extra] as NodeJS.Signals[]) process.on(signal, () => on(signal))
  watchParent(() => on('SIGTERM'))
}

/** How often a child of `bun start` checks that `bun start` still runs. */
export const PARENT_CHECK_MS = 250

/**
 * `bun start` runs the api and the dispatcher each in a session of its own, so that a terminal's
 * Ctrl-C reaches them once, forwarded by it, instead of twice (from the terminal and forwarded,
 * which under load could come a second apart and be taken for a second Ctrl-C). Outside its
 * process group, nothing that signals the group reaches them, so `bun start` names itself in
 * BUN_START_PID and a child whose parent is gone (killed with SIGKILL, say) stops as on SIGTERM
 * rather than run on alone.
 */
function watchParent(stop: () => void, env = process.env): void {
  const parent = Number(env.BUN_START_PID)
  if (!Number.isInteger(parent) || parent <= 0) return
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    stop()
  }, PARENT_CHECK_MS)
  timer.unref()
}
