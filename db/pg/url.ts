/**
 * DATABASE_URL as the service reads it: checked once at startup (core/config.ts), and never
 * printed with its password (every message that shows it goes through `maskUrl`).
 */

/** The schemes Bun.sql reads as PostgreSQL. */
export const PG_SCHEMES = ['postgres:', 'postgresql:']

/**
 * The URL with its password replaced by `***`, for messages and logs: the one in the user part
 * and a `password` query parameter. A URL that does not parse as `scheme://host...` (a typo, a
 * forgotten scheme) is masked by its shape: everything between the first `:` of the user part
 * and the last `@`, so a malformed one is safe to show too.
 */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.host !== '') {
      if (parsed.password !== '') parsed.password = '***'
      if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***')
      return parsed.password === '' && !parsed.searchParams.has('password') ? url : parsed.href
    }
  } catch {
    // masked by its shape below
  }
  const at = url.lastIndexOf('@')
  const scheme = url.indexOf('://')
  const colon = url.indexOf(':', scheme >= 0 && scheme < at ? scheme + 3 : 0)
  return at < 0 || colon < 0 || colon > at ? url : `${url.slice(0, colon + 1)}***${url.slice(at)}`
}

/** Why `url` cannot be a DATABASE_URL, or null when it can. */
export function pgUrlProblem(url: string): string | null {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'it is not a URL'
  }
  if (!PG_SCHEMES.includes(parsed.protocol)) return `its scheme is ${JSON.stringify(parsed.protocol.slice(0, -1))}`
  if (parsed.hostname === '' && !['host', 'path', 'socket'].some((p) => parsed.searchParams.has(p))) return 'it names no host'
  return null
}

/** The database a URL names (`/content` is `content`), or undefined when it names none. */
export function databaseOf(url: string): string | undefined {
  const name = decodeURIComponent(new URL(url).pathname.slice(1))
  return name === '' ? undefined : name
}
