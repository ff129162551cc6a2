/**
 * File modes of the database (docs/security.md "Files on disk"): the file holds webhook secrets
 * and provider tokens in clear (signing needs them) and the token hashes, so only the user the
 * service runs as may read it. SQLite creates a file with mode 0644 less the umask; its `-wal`,
 * `-shm` and `-journal` files take the mode of the database file they belong to.
 */
import { closeSync, fchmodSync, openSync, statSync } from 'node:fs'
import { dirname } from 'node:path'

/** A file of the database is too open when its group or others may read it. */
const FILE_TOO_OPEN = 0o044
/**
 * Its directory, when others may list it. Not its group: the service's own group may (the
 * deployment's 0750 directory, docs/operations.md), and listing shows names, not contents.
 */
const DIRECTORY_TOO_OPEN = 0o004

/**
 * Creates `path` empty with mode 0600 unless it exists, whatever the umask, before SQLite opens
 * it: SQLite then gives the same mode to the `-wal`, `-shm` and `-journal` files it makes beside
 * it. An existing file keeps its mode (`exposedDatabaseFiles` tells when that is too open).
 */
export function createPrivateFile(path: string): void {
  let fd: number
  try {
    fd = openSync(path, 'ax', 0o600) // O_EXCL: never changes the mode of a file another process made
  } catch (e) {
    if ((e as { code?: string }).code === 'EEXIST') return
    throw e
  }
  try {
    fchmodSync(fd, 0o600) // the umask may have taken bits off (0o277 leaves the owner unable to write)
  } finally {
    closeSync(fd)
  }
}

/**
 * The database's directory when others may list it, and those of its files that exist (the
 * database, `-wal`, `-shm`, `.migrate-lock`) that group or others may read, each with its mode in octal.
 */
export function exposedDatabaseFiles(path: string): { path: string; mode: string }[] {
  if (path === ':memory:') return []
  const exposed: { path: string; mode: string }[] = []
  const files = [path, `${path}-wal`, `${path}-shm`, `${path}.migrate-lock`]
  const checked: [string, number][] = [[dirname(path), DIRECTORY_TOO_OPEN], ...files.map((f): [string, number] => [f, FILE_TOO_OPEN])]
  for (const [p, tooOpen] of checked) {
    let mode: number
    try {
      mode = statSync(p).mode & 0o777
    } catch {
      continue // not there (yet): nothing to read
    }
    if (mode & tooOpen) exposed.push({ path: p, mode: mode.toString(8).padStart(4, '0') })
  }
  return exposed
}

/**
 * One warning at startup (api, dispatcher) when `exposedDatabaseFiles` finds any: files made by
 * an older version, or by another tool, keep their mode, and a readable directory shows the
 * files' names and lets a later copy or restore into it land readable.
 */
export function warnIfExposed(log: { warn(fields: object, msg: string): void }, path: string): void {
  const exposed = exposedDatabaseFiles(path)
  if (exposed.length === 0) return
  log.warn(
    { databasePath: path, readableByOthers: exposed },
    'other users of this machine can read the database files or list their directory (they hold webhook secrets): chmod 600 the files, chmod o-rwx the directory',
  )
}
