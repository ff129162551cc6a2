/**
 * The dispatcher loop: a `runOnce(now)` that tests drive, and `start()` / `stop()` around it.
 */
import { checkpoint, type Db } from '../db/client'
import type { Logger } from '../api/log'
import type { Metrics } from '../api/metrics'
import { runDueSchedules } from '../api/publish/scheduled'

export interface DispatcherDeps {
  db: Db
  log: Logger
  metrics: Metrics
  pollMs: number
  now?: () => number
}

export function createDispatcher(deps: DispatcherDeps) {
  const now = deps.now ?? Date.now
  let timer: ReturnType<typeof setTimeout> | null = null
  let running: Promise<void> | null = null
  let stopped = false

  /** One pass: due scheduled publishes. */
  async function runOnce(at = now()) {
    checkpoint(deps.db)
    for (const item of runDueSchedules(deps.db, deps.metrics, at)) {
      deps.log.info({ documentId: item.id, status: item.status, reason: item.reason }, 'scheduled publish')
    }
  }

  function tick() {
    if (stopped) return
    running = runOnce()
      .catch((err) => deps.log.error({ err }, 'dispatcher pass failed'))
      .finally(() => {
        running = null
        if (!stopped) timer = setTimeout(tick, deps.pollMs)
      })
  }

  return {
    runOnce,
    start() {
      stopped = false
      tick()
    },
    /** Stops claiming new work and waits for the pass in flight. */
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await running
    },
  }
}
