/**
 * A claiming process for test/db/pg/outbox/processes.test.ts: its own pool and its own proof of
 * life on the database at argv[3]. It prints `ready <owner>`, and one `claimed <token> <now>
 * <expires> <seq,...>` line per claim that leased rows (`now` as the claim was given it).
 *
 * - `drain <url> <leaseMs> [holdMs]`: waits for `go` on stdin, then claims, waits up to `holdMs`
 *   (random; default 0) as a send would, and records each row delivered, until nothing is
 *   pending; prints `refused <n>` (records whose lease was gone) and `done`.
 * - `hold <url> <leaseMs> <limit>`: claims once, then holds its leases (and its lock) until killed.
 */
import { SQL } from 'bun'
import { pgClientOptions } from '../../../../db/pg/client'
import { claimDue } from '../../../../db/pg/outbox/claim'
import { PgLiveness } from '../../../../db/pg/outbox/liveness'
import { recordAttempts } from '../../../../db/pg/outbox/record-attempts'

const [mode, url, leaseArg, extraArg] = process.argv.slice(2)
const leaseMs = Number(leaseArg)
const sql = new SQL(pgClientOptions(url!, { processName: `claimer ${mode}`, poolSize: 2 }))
const liveness = new PgLiveness(sql)
const owner = await liveness.start()
const out = (line: string) => process.stdout.write(line + '\n')

async function claim(limit: number, perWebhook?: number) {
  const now = Date.now()
  const rows = await claimDue(sql, { now, leaseMs, limit, perWebhook, owner })
  if (rows.length > 0) out(`claimed ${rows[0]!.leaseToken} ${now} ${now + leaseMs} ${rows.map((r) => r.seq).join(',')}`)
  return rows
}

out(`ready ${owner}`)
if (mode === 'hold') {
  await claim(Number(extraArg))
  setInterval(() => {}, 60_000) // alive, holding the lock, until killed
} else {
  for await (const line of console) if (line.trim() === 'go') break
  const holdMs = Number(extraArg ?? 0)
  let refused = 0
  for (;;) {
    const rows = await claim(25, 5)
    if (rows.length === 0) {
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM outbox WHERE status = 'pending'`
      if (n === 0) break
      await Bun.sleep(2)
      continue
    }
    if (holdMs > 0) await Bun.sleep(Math.random() * holdMs)
    const done = rows.map((row) => ({ row, result: { statusCode: 200, error: null, durationMs: 1, responseBody: '' }, step: { status: 'delivered' as const }, startedAt: Date.now() }))
    refused += (await recordAttempts(sql, done)).filter((held) => !held).length
  }
  out(`refused ${refused}`)
  out('done')
  await liveness.stop()
  await sql.close()
}
