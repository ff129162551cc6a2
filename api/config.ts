/** Environment configuration; every variable has the default the README lists. */
export interface Config {
  port: number
  databasePath: string
  logLevel: string
  allowPrivateTargets: boolean
  dispatcherPollMs: number
  siteChangeQuietMs: number
  siteChangeMaxHoldMs: number
  webhookTimeoutMs: number
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number
  /** `GET /metrics` without a bearer token (for scrapers that cannot send one). */
  metricsPublic: boolean
}

const int = (value: string | undefined, fallback: number) => {
  const n = Number(value)
  return value !== undefined && value !== '' && Number.isFinite(n) ? n : fallback
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return {
    port: int(env.PORT, 3000),
    databasePath: env.DATABASE_PATH || './data/content.db',
    logLevel: env.LOG_LEVEL || 'info',
    allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
    dispatcherPollMs: int(env.DISPATCHER_POLL_MS, 250),
    siteChangeQuietMs: int(env.SITE_CHANGE_QUIET_MS, 30_000),
    siteChangeMaxHoldMs: int(env.SITE_CHANGE_MAX_HOLD_MS, 1_800_000),
    webhookTimeoutMs: int(env.WEBHOOK_TIMEOUT_MS, 30_000),
    maxBodyBytes: int(env.MAX_BODY_BYTES, 1_048_576),
    metricsPublic: env.METRICS_PUBLIC === 'true',
  }
}
