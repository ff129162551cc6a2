import pino from 'pino'

export type Logger = pino.Logger

/**
 * JSON lines to stdout. Authorization headers, secrets and signatures are redacted by path as a
 * second line of defence; code never passes them to a logger in the first place.
 */
export function createLogger(level: string, component: string): Logger {
  return pino({
    level,
    base: { component },
    redact: { paths: ['*.authorization', '*.secret', '*.signature', 'headers', 'token'], censor: '[redacted]' },
  })
}
