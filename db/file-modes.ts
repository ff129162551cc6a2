/**
 * File modes of the database (docs/security.md "Files on disk"): the file holds webhook secrets
 * and provider tokens in clear (signing needs them) and the token hashes, so only the user the
 * service runs as may read it. SQLite creates a file with mode 0644 less the umask; its `-wal`,
 * `-shm` and `-journal` files take the mode of the database file they belong to.
 */
import { closeSync, fchmodSync, openSync, statSync } from 'node:fs'
import { dirname } from 'node:path'

/** Group and others may read. */
const READABLE_BY_OTHERS = 0o044

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
 * The database's directory and those of its files that exist (the database, `-wal`, `-shm`,
 * `.migrate-lock`) whose mode lets group or others read them, each with its mode in octal.
 */
export function exposedDatabaseFiles(path: string): { path: string; mode: string }[] {
  if (path === ':memory:') return []
  const exposed: { path: string; mode: string }[] = []
  for (const p of [dirname(path), path, `${path}-wal`, `${path}-shm`, `${path}.migrate-lock`]) {
    let mode: number
    try {
      mode = statSync(p).mode & 0o777
    } catch {
      continue // not there (yet): nothing to read
    }
    if (mode & READABLE_BY_OTHERS) exposed.push({ path: p, mode: mode.toString(8).padStart(4, '0') })
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
    'the database directory or files can be read by other users of this machine (the file holds webhook secrets): chmod 700 the directory and chmod 600 the files',
  )
}
