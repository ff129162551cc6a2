/**
 * The I/O around `coalesce.ts`: reads the held site changes per team, and when the rule says
 * so writes ONE `site.changed` to the outbox and marks the changes it covers, in one
 * transaction (spec.md "Rules for site.changed").
 */
import { and, desc, eq, isNull, lte, max, min, sql } from 'drizzle-orm'
import type { SqliteDb as Db, MayWrite } from '../db/client'
import { siteChanges, teams } from '../db/schema'
import { enqueueEvent } from '../core/events/record'
import { shouldEmit } from './coalesce'

/**
 * The content-index job. This service keeps the pushed index definition but builds no search
 * index of its own, so the job has nothing to rebuild: it records the pushed generation as
 * applied. A deployment with a real index build would set `indexedGeneration` when it finishes,
 * and site.changed waits for that (bounded by the max hold).
 */
export function runIndexJob(db: Db, mayWrite: MayWrite = () => true): number {
  // A read first, as for claims: an idle poll never takes the write lock.
  if (!db.$client.query('SELECT 1 FROM teams WHERE indexed_generation < index_generation LIMIT 1').get() || !mayWrite()) return 0
  return db.$client.query('UPDATE teams SET indexed_generation = index_generation WHERE indexed_generation < index_generation').run().changes
}

/**
 * Emits the coalesced `site.changed` of every team whose held changes are due at `now`.
 * Safe with two dispatchers: the marking UPDATE decides who emits.
 * Returns the team ids that got an event.
 */
export async function emitDueSiteChanges(db: Db, rules: { now: number; quietMs: number; maxHoldMs: number }, mayWrite: MayWrite = () => true): Promise<string[]> {
  const held = db
    .select({ teamId: siteChanges.teamId, firstAt: min(siteChanges.occurredAt), lastAt: max(siteChanges.occurredAt), maxId: max(siteChanges.id) })
    .from(siteChanges)
    .where(isNull(siteChanges.emittedAt))
    .groupBy(siteChanges.teamId)
    .all()
  const emitted: string[] = []
  for (const h of held) {
    const team = db.select().from(teams).where(eq(teams.id, h.teamId)).get()
    const indexCaughtUp = !team || team.indexedGeneration >= team.indexGeneration
    if (!shouldEmit({ firstAt: h.firstAt!, lastAt: h.lastAt! }, { ...rules, indexCaughtUp }) || !mayWrite()) continue
    const done = await db.transaction(
      async (tx) => {
        const covered = tx
          .update(siteChanges)
          .set({ emittedAt: rules.now })
          .where(and(eq(siteChanges.teamId, h.teamId), isNull(siteChanges.emittedAt), lte(siteChanges.id, h.maxId!)))
          .returning({ id: siteChanges.id })
          .all()
        if (covered.length === 0 || !team) return false
        // The latest change names the status and the acting user of the coalesced event.
        const latest = tx.select().from(siteChanges).where(and(eq(siteChanges.teamId, h.teamId), lte(siteChanges.id, h.maxId!))).orderBy(desc(siteChanges.id)).limit(1).get()!
        await enqueueEvent(tx, {
          v: 2, eventType: 'site.changed', eventId: Bun.randomUUIDv7(), occurredAt: new Date(latest.occurredAt).toISOString(),
          teamId: team.id, workspaceId: team.workspaceId, userId: latest.userId, documentId: null, collection: null,
          locales: [], status: latest.status, url: '', urls: {}, previousUrls: [], scope: 'site',
        }, rules.now)
        return true
      },
      { behavior: 'immediate' },
    )
    if (done) emitted.push(h.teamId)
  }
  return emitted
}
