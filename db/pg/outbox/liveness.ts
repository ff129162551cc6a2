/**
 * Proof of life on PostgreSQL (docs/postgresql.md "The outbox on PostgreSQL"): each started
 * dispatcher holds a session-level advisory lock keyed by its owner id on one connection of its
 * own for as long as it runs. PostgreSQL drops the lock when that session ends: the process died
 * (kill -9, a crash, the OOM killer: the kernel closes its socket) or its machine or network
 * went away (TCP keepalives, set below, end the session). An owner whose key no session holds is
 * dead, and a claim (claim.ts) takes its leased rows at once instead of when their leases expire.
 * A stopped process (SIGSTOP, a debugger) keeps its socket and its lock: its rows wait for their
 * leases. The twin of db/outbox/liveness.ts (a flock per owner on a side file) for SQLite.
 */
import type { ReservedSQL, SQL } from 'bun'

/**
 * The advisory lock namespace of dispatcher owners (the first key of the two-int form), so
 * other advisory locks of the database (the migration lock) never count as a dispatcher.
 */
export const OWNER_LOCK_SPACE = 0x0d15_7a7c

/**
 * SQL: whether the owner of lease token `tokenSql` is proved dead: no session holds its key, so
 * this transaction can take it (`pg_try_advisory_xact_lock`; it is given back when the
 * transaction ends, and meanwhile others see the owner as alive, the safe side). Asked per row
 * and at the moment the row is read, not from a list of live owners read once per statement: a
 * claim that re-checks a row another dispatcher leased a moment ago (the lease committed after
 * the claim's snapshot) must see that dispatcher's lock, taken before its lease, even when it
 * started during this statement. A token without an owner prefix (a dispatcher that keeps no
 * proof of life) is never dead: its lease is the rule. The key is a 32-bit hash of the owner
 * id: two owners with one hash only make a dead one look alive (its rows wait for their leases),
 * never a live one dead. Never run it on the session that holds a lock (PgLiveness keeps its
 * connection to itself): a session's own lock does not stop it from taking the key again.
 */
export function ownerDeadSql(tokenSql: string): string {
  return `(position('/' in ${tokenSql}) > 0 AND pg_try_advisory_xact_lock(${OWNER_LOCK_SPACE}, hashtext(split_part(${tokenSql}, '/', 1))))`
}

/** Whether some session holds the proof of life of dispatcher `owner` (on a pool: the key taken to test it is given back at once). */
export async function ownerIsAlive(sql: SQL, owner: string): Promise<boolean> {
  const [row] = await sql.unsafe(`SELECT ${ownerDeadSql('$1::text')} AS dead`, [`${owner}/x`])
  return row.dead === false
}

/**
 * The lock's session: keepalives, so a vanished machine's lock goes after about 10 + 3 x 5 s,
 * not the kernel's two hours; and never ended for idleness (a server-wide `idle_session_timeout`
 * would make a live dispatcher look dead). The pool's statement timeouts stay.
 */
const SESSION = ['tcp_keepalives_idle = 10', 'tcp_keepalives_interval = 5', 'tcp_keepalives_count = 3', 'tcp_user_timeout = 25000', 'idle_session_timeout = 0']

/** One dispatcher's proof of life: its owner id, and the connection that holds its lock. */
export class PgLiveness {
  private conn: ReservedSQL | null = null
  private ownerId: string | null = null

  constructor(private readonly sql: SQL) {}

  /**
   * Reserves a connection of the pool for good (a pool of N serves N - 1 queries at once) and takes the lock of a fresh owner id on it; returns the owner id,
   * the prefix of every lease token this dispatcher writes. Only a dispatcher holding the
   * lock may write `<owner>/...` tokens: another one would find them dead and take the rows.
   */
  async start(): Promise<string> {
    if (this.ownerId) return this.ownerId
    const conn = await this.sql.reserve()
    try {
      for (const setting of SESSION) await conn.unsafe(`SET ${setting}`)
      for (;;) {
        const owner = crypto.randomUUID()
        // try, not wait: a key already held is another live owner's hash; a new id takes another key.
        const [row] = await conn`SELECT pg_try_advisory_lock(${OWNER_LOCK_SPACE}, hashtext(${owner})) AS taken`
        if (row.taken === true) {
          this.conn = conn
          this.ownerId = owner
          return owner
        }
      }
    } catch (e) {
      await conn.close()
      throw e
    }
  }

  /** This dispatcher's owner id; null before `start` or after the lock was lost. */
  get owner(): string | null {
    return this.ownerId
  }

  /**
   * Whether the lock is still held: a query on its connection. False means the session ended
   * (a network cut, the server restarted): other dispatchers may already have taken this
   * owner's rows, so the caller stops claiming under it and starts again with a new owner id.
   */
  async check(): Promise<boolean> {
    if (!this.conn) return false
    try {
      await this.conn`SELECT 1`
      return true
    } catch {
      await this.drop()
      return false
    }
  }

  /** Gives the lock up (a clean stop: nothing of this owner is leased any more, or what is may go at once). */
  async stop(): Promise<void> {
    // Unlocked before the close returns: the server ends a closed session a moment later, and
    // until then the owner would still look alive.
    await this.conn?.unsafe('SELECT pg_advisory_unlock_all()').catch(() => {})
    await this.drop()
  }

  private async drop() {
    const conn = this.conn
    this.conn = null
    this.ownerId = null
    // Closed, not released: a pooled session would keep the lock for whoever reserves it next.
    if (conn) await conn.close().catch(() => {})
  }
}
