/**
 * Environment configuration; every variable has the default docs/configuration.md lists. A value that is
 * set but wrong (not a whole number, out of range, an unknown level or boolean) is refused at
 * startup with a `ConfigError` naming the variable, never replaced by the default or left to
 * misbehave later (`DISPATCHER_LEASE_MS=-1` sent the same events thousands of times a second).
 */
import { readFileSync } from 'node:fs'
import { maskUrl, pgUrlProblem } from '../db/pg/url'

export interface Config {
  port: number
  /** The address the api listens on: all interfaces by default, `127.0.0.1` behind a reverse proxy. */
  host: string
  databasePath: string
  /** A PostgreSQL URL (docs/postgresql.md); null: SQLite at `databasePath`, as always. */
  databaseUrl: string | null
  /** Connections per process on PostgreSQL; unset means the pool's own default (db/pg/client.ts). */
  databasePoolSize: number | undefined
  logLevel: LogLevel
  allowPrivateTargets: boolean
  dispatcherPollMs: number
  siteChangeQuietMs: number
  siteChangeMaxHoldMs: number
  webhookTimeoutMs: number
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number
  /** How long a request's body may take to arrive once its headers have; later is `408 request_timeout`. */
  requestBodyTimeoutMs: number
  /** `GET /metrics` without a bearer token (for scrapers that cannot send one). */
  metricsPublic: boolean
  /** Dispatcher knobs; unset means the dispatcher's own default (docs/configuration.md#variables). */
  dispatcherLeaseMs: number | undefined
  dispatcherConcurrency: number | undefined
  dispatcherPerWebhook: number | undefined
  /** Finished deliveries older than this many days leave the delivery log; 0 keeps them forever. */
  deliveryLogRetentionDays: number
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** A setting that cannot be used; its message names the variable and what it accepts. */
export class ConfigError extends Error {}

/** The exit code of a process refused by its configuration (sysexits EX_CONFIG; the systemd unit does not restart on it). */
export const EX_CONFIG = 78
/** MAX_BODY_BYTES when unset: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576

/** Timers (setTimeout, AbortSignal.timeout) take at most this many milliseconds. */
const MAX_MS = 2_147_483_647
/** A lease must outlast a whole send by this much, or a slow send is claimed again by its own dispatcher. */
export const LEASE_MARGIN_MS = 500

type Env = Record<string, string | undefined>
const shown = (raw: string) => JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw)
const isSet = (raw: string | undefined): raw is string => raw !== undefined && raw !== ''

function integer(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name]
  if (!isSet(raw)) return undefined
  // Digits only: `abc`, `3.5`, `1e3`, `0x10F3` and ` 80` are mistakes, not numbers to guess at.
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!(n >= min && n <= max)) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; got ${shown(raw)}.`)
  return n
}

function boolean(env: Env, name: string): boolean {
  const raw = env[name]
  if (!isSet(raw)) return false
  const value = raw.toLowerCase()
  if (value !== 'true' && value !== 'false') throw new ConfigError(`${name} must be true or false; got ${shown(raw)}.`)
  return value === 'true'
}

/** An address or a name without spaces, scheme or port; whether it is this machine's, listening tells. */
function host(env: Env): string {
  const raw = env.HOST
  if (!isSet(raw)) return '0.0.0.0'
  // Digits and dots only is meant as an IPv4 address, never a name: `999.1.1.1` is a typo, not a host.
  const badIpv4 = /^[0-9.]+$/.test(raw) && !/^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(raw)
  if (badIpv4 || !/^(\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:]*:[0-9a-fA-F:.]*|[A-Za-z0-9.-]+)$/.test(raw)) {
    throw new ConfigError(`HOST must be an address or a host name to listen on, e.g. 127.0.0.1 or ::1; got ${shown(raw)}.`)
  }
  return raw.startsWith('[') ? raw.slice(1, -1) : raw
}

/** A postgres:// or postgresql:// URL, shown in a refusal with its password masked (db/pg/url.ts). */
function databaseUrl(env: Env): string | null {
  const raw = env.DATABASE_URL
  if (!isSet(raw)) return null
  const problem = pgUrlProblem(raw)
  if (problem) {
    throw new ConfigError(`DATABASE_URL must be a postgres:// or postgresql:// URL, e.g. postgres://user:password@host:5432/content; got ${shown(maskUrl(raw))}: ${problem}.`)
  }
  return raw
}

/**
 * Bun reads NODE_EXTRA_CA_CERTS itself and skips a file it cannot use without a word: every
 * https target signed by that CA would then fail its sends with a certificate error.
 */
function checkExtraCaCerts(env: Env): void {
  const path = env.NODE_EXTRA_CA_CERTS
  if (!isSet(path)) return
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    throw new ConfigError(`NODE_EXTRA_CA_CERTS must be a readable PEM file of CA certificates; cannot read ${shown(path)} (${(e as { code?: string }).code ?? 'error'}).`)
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(`NODE_EXTRA_CA_CERTS must be a PEM file of CA certificates; ${shown(path)} holds no "-----BEGIN CERTIFICATE-----" block.`)
  }
}

/** Reads and checks every setting; throws a `ConfigError` for the first one that cannot be used. */
export function loadConfig(env: Env = process.env): Config {
  checkExtraCaCerts(env)
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase()
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (any case); got ${shown(env.LOG_LEVEL!)}.`)
  }
  const webhookTimeoutMs = integer(env, 'WEBHOOK_TIMEOUT_MS', 1, MAX_MS) ?? 30_000
  const dispatcherLeaseMs = integer(env, 'DISPATCHER_LEASE_MS', 1, MAX_MS)
  if (dispatcherLeaseMs !== undefined && dispatcherLeaseMs < webhookTimeoutMs + LEASE_MARGIN_MS) {
    throw new ConfigError(
      `DISPATCHER_LEASE_MS must be at least WEBHOOK_TIMEOUT_MS + ${LEASE_MARGIN_MS} (${webhookTimeoutMs + LEASE_MARGIN_MS}): `
        + `a send may take the whole timeout, and a lease that ends first lets the row be sent again meanwhile; got ${dispatcherLeaseMs}.`,
    )
  }
  return {
    // 0 asks the system for a free port.
    port: integer(env, 'PORT', 0, 65_535) ?? 3000,
    host: host(env),
    databasePath: env.DATABASE_PATH || './data/content.db',
    databaseUrl: databaseUrl(env),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 1, 10_000),
    logLevel: logLevel as LogLevel,
    allowPrivateTargets: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'),
    dispatcherPollMs: integer(env, 'DISPATCHER_POLL_MS', 1, MAX_MS) ?? 250,
    siteChangeQuietMs: integer(env, 'SITE_CHANGE_QUIET_MS', 0, MAX_MS) ?? 30_000,
    siteChangeMaxHoldMs: integer(env, 'SITE_CHANGE_MAX_HOLD_MS', 0, MAX_MS) ?? 1_800_000,
    webhookTimeoutMs,
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1, 1 << 30) ?? DEFAULT_MAX_BODY_BYTES,
    requestBodyTimeoutMs: integer(env, 'REQUEST_BODY_TIMEOUT_MS', 1, MAX_MS) ?? 10_000,
    metricsPublic: boolean(env, 'METRICS_PUBLIC'),
    dispatcherLeaseMs,
    dispatcherConcurrency: integer(env, 'DISPATCHER_CONCURRENCY', 1, 10_000),
    dispatcherPerWebhook: integer(env, 'DISPATCHER_PER_WEBHOOK', 1, 10_000),
    deliveryLogRetentionDays: integer(env, 'DELIVERY_LOG_RETENTION_DAYS', 0, 36_500) ?? 30,
  }
}

/**
 * `loadConfig()` for a process entry point: a `ConfigError` is one line on stderr and exit
 * `EX_CONFIG`, not a stack trace (the value cannot get better by restarting).
 */
export function loadConfigOrExit(processName: string, env: Env = process.env): Config {
  try {
    return loadConfig(env)
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e
    console.error(`${processName}: configuration error: ${e.message}`)
    process.exit(EX_CONFIG)
  }
}
