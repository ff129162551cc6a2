/**
 * Wake on commit: whoever writes outbox rows sends every running dispatcher of the database a
 * hint, a datagram to the UDP port on 127.0.0.1 each one names in `<db>.dispatchers/<owner>.port`
 * (db/outbox/wake-listener.ts), so a delivery starts within a millisecond of the commit
 * instead of at the dispatcher's next 10 ms check. The outbox stays the only source of truth:
 * a hint lost, early or sent for a transaction that rolled back costs a claim that finds
 * nothing, or latency, never an event (the dispatcher's own checks find every row).
 */
import type { Database } from 'bun:sqlite'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** Where a database's dispatchers keep their proof of life and wake ports. */
export const dispatchersDir = (databasePath: string) => `${databasePath}.dispatchers`

/** The ports are read again at most this often (a dispatcher started since is woken after that). */
const PORTS_TTL_MS = 1000

type Udp = Bun.udp.Socket<'buffer'>
let socket: Udp | null = null
let opening: Promise<Udp | null> | null = null
const known = new Map<string, { ports: number[]; readAt: number }>()
const queued = new Set<string>()

/**
 * Hints the dispatchers of `client`'s database that outbox rows were written. Called inside the
 * writing transaction: the datagrams go out on a later turn of the event loop, after the
 * (synchronous) transaction committed. At most one hint per database per turn.
 */
export function wakeDispatchers(client: Database): void {
  const path = client.filename
  if (!path || path === ':memory:' || queued.has(path)) return
  queued.add(path)
  setImmediate(() => {
    queued.delete(path)
    const ports = portsOf(path)
    if (ports.length === 0) return
    if (socket) return send(socket, ports)
    // Unref'd: a hint socket never keeps a process (the CLI's seed, a script) from exiting.
    // An error (a hint to a port no one listens on any more) is nothing to act on.
    const open = (opening ??= Bun.udpSocket({ socket: { error: () => {} } }).then((s) => (s.unref(), s), () => null))
    void open.then((s) => {
      socket = s
      if (s) send(s, ports)
    })
  })
}

function send(s: Udp, ports: number[]) {
  for (const port of ports) {
    // A port whose dispatcher is gone (killed before it removed its port file) answers "port
    // unreachable", and the socket reports that on its NEXT send, whichever port that is for: it
    // throws ECONNREFUSED at once and that datagram is not sent. So a refused send is tried once
    // more (the error was taken by the throw), and a hint never costs the process (it was
    // uncaught, and a scheduled publish in the dispatcher killed it).
    try {
      s.send('w', port, '127.0.0.1')
    } catch {
      try {
        s.send('w', port, '127.0.0.1')
      } catch {}
    }
  }
}

function portsOf(path: string): number[] {
  const now = Date.now()
  const cached = known.get(path)
  if (cached && now - cached.readAt < PORTS_TTL_MS) return cached.ports
  const dir = dispatchersDir(path)
  const ports: number[] = []
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.port')) continue
      try {
        const port = Number(readFileSync(join(dir, name), 'utf8'))
        if (Number.isInteger(port) && port > 0 && port < 65536) ports.push(port)
      } catch {} // gone since the listing: its dispatcher stopped
    }
  } catch {} // no dispatcher ever started here
  known.set(path, { ports, readAt: now })
  return ports
}
