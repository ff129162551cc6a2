/**
 * The dispatcher's end of wake on commit (db/outbox/wake.ts): a UDP socket on 127.0.0.1 whose
 * port is written to `<dir>/<owner>.port`; every datagram is a hint that outbox rows were
 * committed. Anyone on the machine can send one: a hint only makes the dispatcher look for due
 * rows a little earlier, which it does every 10 ms anyway.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface WakeListener {
  close(): void
}

/** Listens for hints; null when no socket or port file could be made (the dispatcher then wakes on its own checks). */
export async function listenForWakes(dir: string, owner: string, onWake: () => void): Promise<WakeListener | null> {
  let socket: Bun.udp.Socket<'buffer'> | null = null
  const file = join(dir, `${owner}.port`)
  try {
    const bound = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0, socket: { data: () => onWake(), error: () => {} } })
    socket = bound
    // Written under another name and renamed: a sender never reads half a port number.
    const tmp = join(dir, `.${owner}.port.tmp`)
    writeFileSync(tmp, String(bound.port), { mode: 0o600 })
    renameSync(tmp, file)
  } catch {
    socket?.close()
    return null
  }
  return {
    close() {
      rmSync(file, { force: true })
      socket!.close()
    },
  }
}
