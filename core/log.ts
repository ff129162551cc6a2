import pino from 'pino'

export type Logger = pino.Logger

/** The component-less logger each `createLogger` logger was made from (see `componentLogger`). */
const roots = new WeakMap<Logger, Logger>()

/**
 * JSON lines to stdout (or `destination`, for tests). Authorization headers, secrets and
 * signatures are redacted by path as a second line of defence; code never passes them to a
 * logger in the first place.
 *
 * `component` is a child binding of a root that has none, so that `componentLogger` can make a
 * sibling with another component: pino never merges a child's bindings into its parent's, so a
 * `child({component})` of this logger would write the key twice (style.md rule 10 wants one).
 */
export function createLogger(level: string, component: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: null, // no pid / hostname: one process per component, named by `component`
    redact: { paths: ['*.authorization', '*.secret', '*.signature', 'headers', 'token'], censor: '[redacted]' },
  }
  const root = destination ? pino(options, destination) : pino(options)
  const log = root.child({ component })
  roots.set(log, root)
  return log
}

/**
 * A logger for another `component` beside `log` (same output, same level), with `bindings`:
 * e.g. the dispatcher's per-delivery `{component: 'delivery', eventId, webhookId}`. Each line
 * carries one `component` key. A logger not made by `createLogger` just gets a child.
 */
export function componentLogger(log: Logger, component: string, bindings: pino.Bindings = {}): Logger {
  return (roots.get(log) ?? log).child({ component, ...bindings }, { level: log.level })
}
