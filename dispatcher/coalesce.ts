/**
 * spec.md "Rules for site.changed" as one pure decision: the site changes of a team are held
 * until SITE_CHANGE_QUIET_MS passed since the last one AND the content index caught up, but
 * never longer than SITE_CHANGE_MAX_HOLD_MS after the first held change.
 */

export interface HeldChanges {
  /** Time of the first change not yet covered by a site.changed (ms). */
  firstAt: number
  /** Time of the latest such change (ms). */
  lastAt: number
}

export interface CoalesceRules {
  now: number
  quietMs: number
  maxHoldMs: number
  /** The content index the site reads has caught up with the last push. */
  indexCaughtUp: boolean
}

/** Whether the held changes of one team are to be sent as one `site.changed` now. */
export function shouldEmit(held: HeldChanges, rules: CoalesceRules): boolean {
  if (rules.now - held.firstAt >= rules.maxHoldMs) return true
  return rules.now - held.lastAt >= rules.quietMs && rules.indexCaughtUp
}
