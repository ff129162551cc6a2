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
}
