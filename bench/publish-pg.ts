/**
 * bench/publish.ts on PostgreSQL: the same publishes (core's `publishCounted` on the handle the
 * api runs on, db/pg/handle.ts) against a bare transaction of the very same statements through
 * the same driver (Bun.sql), each on a fresh copy of the same prepared SQLite file.
 *
 * The statements are recorded on a first copy (bench/pg-record.ts: every `unsafe` and tagged
 * query each publish sends), then replayed with `sql.begin` and nothing else, one publish per
 * transaction, one awaited statement after the other, as the publish sends them. The ratio is
 * what our layers cost on top of the PostgreSQL work (and the round trips) a publish needs.
 * Real and bare run in alternating blocks (bench/alternate.ts).
 */
import type { Db } from '../db/client'
import { pgHandle } from '../db/pg/handle'
import { createMetrics } from '../core/metrics'
import { benchPgDatabase } from './pg-db'
import { recording, replay, statementText, type Statement } from './pg-record'
import { alternatingBlocks } from './alternate'

export type Publish = (db: Db, i: number, metrics: ReturnType<typeof createMetrics> | null) => Promise<unknown>

export interface PgPublishFigures {
  statements: number
  /** The first publish's statements, as text (BENCH_STATEMENTS=1 prints them). */
  texts: string[]
  publishRate: number
  bareRate: number
}

/** Runs the PostgreSQL half of bench/publish.ts on copies of `sqlitePath` (N drafts `pages/p<i>/draft`). */
export async function publishOnPostgres(serverUrl: string, sqlitePath: string, n: number, publish: Publish): Promise<PgPublishFigures> {
  const copies = await Promise.all(['record', 'real', 'bare'].map((what) => benchPgDatabase(serverUrl, `publish_${what}`, sqlitePath)))
  const [scratch, real, bare] = copies as [typeof copies[0], typeof copies[0], typeof copies[0]]
  try {
    // 1. Record the statements of every publish on a scratch copy.
    const log: Statement[] = []
    const recorder = pgHandle(recording(scratch.sql, log)) as Db
    const recorded: Statement[][] = []
    for (let i = 0; i < n; i++) {
      const from = log.length
      await publish(recorder, i, null)
      recorded.push(log.slice(from))
    }

    // 2. The real publishes on a fresh copy and the recorded statements replayed bare on another,
    // one transaction per publish, in alternating blocks (which goes first alternating too): the
    // server is shared with the rest of the machine, and a drift in its load then hits both alike.
    const metrics = createMetrics()
    const ms = await alternatingBlocks(n, {
      real: async (from, to) => { for (let i = from; i < to; i++) await publish(real.db as Db, i, metrics) },
      bare: async (from, to) => { for (let i = from; i < to; i++) await bare.sql.begin(async (tx) => await replay(tx, recorded[i]!)) },
    })
    const publishRate = n / (ms.real / 1000)
    const bareRate = n / (ms.bare / 1000)

    // The bare run must have written what the real one did: every document published once, one version each.
    const counts = async (c: typeof real) => (await c.sql`SELECT (SELECT count(*)::int FROM documents WHERE published) AS published, (SELECT count(*)::int FROM revisions) AS revisions`)[0]
    const [a, b] = [await counts(real), await counts(bare)]
    if (a.published !== b.published || a.revisions !== b.revisions || a.published !== n) throw new Error(`the bare replay wrote other rows: ${JSON.stringify({ real: a, bare: b })}`)
    return { statements: recorded[0]!.length, texts: recorded[0]!.map(statementText), publishRate, bareRate }
  } finally {
    await Promise.all(copies.map((c) => c.drop()))
  }
}
