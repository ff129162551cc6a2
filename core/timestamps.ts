/**
 * Timestamps clients send (`publishAt`, `expiresAt`): RFC 3339, a date alone (read as UTC
 * midnight) or a date and time WITH its offset (`Z` or `+02:00`). A time without an offset would
 * be read in the server's time zone, and `Date.parse` alone also takes forms like `Jan 1 2030`.
 * `Date.parse` rolls an impossible calendar date over (`2030-02-31` becomes March 3rd, `T24:00`
 * the next day); such a timestamp is refused instead.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})([Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2}))?$/

/** The refusal's text for a `field` that `parseTimestamp` does not take. */
export const timestampProblem = (field: string) =>
  `\`${field}\` must be an RFC 3339 timestamp with its offset, e.g. \`2030-01-01T09:00:00Z\`, and a real calendar date.`

/** Milliseconds since the epoch, or `null` when `text` is not a real timestamp. */
export function parseTimestamp(text: unknown): number | null {
  const ymd = typeof text === 'string' ? RFC3339.exec(text) : null
  if (!ymd) return null
  const at = Date.parse(text as string)
  if (!Number.isFinite(at)) return null
  // `Date.parse` reads hour 24 as the next day's midnight (ISO 8601's end of day); RFC 3339 stops at 23.
  if (ymd[4] && Number(ymd[4].slice(1, 3)) > 23) return null
  const [year, month, day] = [Number(ymd[1]), Number(ymd[2]), Number(ymd[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null
  return at
}
