/**
 * The bookkeeping of a full pass, before its claim: a WAL checkpoint, due scheduled publishes,
 * the index job, site-change coalescing and a step of the retention sweep. Each step is
 * logged and skipped when it fails, and never keeps deliveries from going out. The checkpoint
 * and the retention sweep are outbox work (OutboxStore); schedules, the index job, revision
 * compression and site changes run on `db`, SQLite or PostgreSQL (revision compression on
 * SQLite only).
 */
import type { Db, MayWrite } from '../db/client'
import type { OutboxStore } from '../db/outbox/store'
import type { Logger } from '../core/log'
import { countPersisted, WORKER_PUBLISH_REVISIONS } from '../core/metrics'
import { runDueSchedules } from '../core/publish/scheduled'
import { emitDueSiteChanges, runIndexJob } from './site-changes'
import { compressRevisionsStep } from './compress-revisions'

/** Under load, the WAL is checkpointed at most this often (always when idle). */
const CHECKPOINT_BUSY_MS = 1000
/**
 * Retention sweeps the outbox a step per full pass (db/outbox/prune.ts: a bounded read, at most
 * this many deliveries removed, a few ms of write lock) until the sweep reaches the end, then
 * starts the next sweep after PRUNE_EVERY_MS.
 */
const PRUNE_BATCH = 200
const PRUNE_EVERY_MS = 10 * 60_000

export interface BookkeepingDeps {
  db: Db
  store: OutboxStore
  log: Logger
  mayWrite: MayWrite
  /** Run PASSIVE WAL checkpoints here (dispatcher/main.ts runs them on a worker thread instead). */
  checkpoints: boolean
  siteChangeQuietMs: number
  siteChangeMaxHoldMs: number
  /** Finished deliveries older than this leave the delivery log; 0 keeps them forever. */
  retentionMs: number
}

/** Builds the bookkeeping step; call it with the pass's time and whether sends are in flight. */
export function createBookkeeping(deps: BookkeepingDeps): (at: number, busy: boolean) => Promise<void> {
  const { db, store, log, mayWrite } = deps
  let lastCheckpoint = 0
  let nextPruneAt = 0
  /** Where the retention sweep goes on (an outbox seq; 0 starts a sweep). */
  let pruneFrom = 0

  const safely = async (step: string, fn: () => unknown) => {
    try {
      await fn()
    } catch (err) {
      log.error({ err, step }, 'dispatcher step failed')
    }
  }

  return async (at, busy) => {
    // PASSIVE WAL checkpoint here, off the api's write path (db/client.ts). While sends are in
    // flight, at most once a second: each checkpoint copies every page changed since the last
    // one and syncs the file, so spacing them out under load copies a hot page once, not 4 times.
    if (deps.checkpoints && (!busy || at - lastCheckpoint >= CHECKPOINT_BUSY_MS || at < lastCheckpoint)) {
      lastCheckpoint = at
      await safely('checkpoint', () => store.checkpoint())
    }
    await safely('scheduled publishes', async () => {
      const failed = (s: { documentId: string; teamId: string }, err: unknown) => log.error({ err, teamId: s.teamId, documentId: s.documentId }, 'scheduled publish failed; tried again in a minute')
      // Counted in the database (the dispatcher serves no /metrics): see core/publish/scheduled.ts.
      const counted = async (conn: Parameters<typeof countPersisted>[0], outcome: 'ok' | 'error') => await countPersisted(conn, WORKER_PUBLISH_REVISIONS, outcome)
      for (const item of await runDueSchedules(db, counted, at, mayWrite, failed)) {
        log.info({ documentId: item.id, status: item.status, ...(item.status === 1 ? { reason: item.reason } : {}) }, 'scheduled publish')
      }
    })
    await safely('index job', () => runIndexJob(db, mayWrite))
    // SQLite only: it converts revision bodies written as plain text before compression (SQLite
    // migration 0009) in SQLite's file; a PostgreSQL database holds no such rows (its bodies are
    // always encoded blobs, and copy-to-postgres copies them encoded).
    if (db.engine === 'sqlite') await safely('revision compression', () => compressRevisionsStep(db, mayWrite, log))
    await safely('site changes', async () => {
      const rules = { now: at, quietMs: deps.siteChangeQuietMs, maxHoldMs: deps.siteChangeMaxHoldMs }
      for (const teamId of await emitDueSiteChanges(db, rules, mayWrite)) log.info({ teamId }, 'site.changed emitted')
    })
    if (deps.retentionMs > 0 && (at >= nextPruneAt || at < nextPruneAt - PRUNE_EVERY_MS)) {
      await safely('retention', async () => {
        const { next, ...pruned } = await store.prune(at - deps.retentionMs, PRUNE_BATCH, mayWrite, pruneFrom)
        // Mid-sweep (or the lock was taken): the next pass goes on; at the end, a new sweep in a while.
        pruneFrom = next ?? 0
        nextPruneAt = next === null ? at + PRUNE_EVERY_MS : at
        if (pruned.deliveries + pruned.siteChanges > 0) log.info(pruned, 'delivery log pruned')
      })
    }
  }
}
