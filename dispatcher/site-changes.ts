/**
 * The I/O around `coalesce.ts`: reads the held site changes per team, and when the rule says
 * so writes ONE `site.changed` to the outbox and marks the changes it covers, in one
 * transaction (spec.md "Rules for site.changed").
 */
import { and, desc, eq, isNull, lte, max, min, sql } from 'drizzle-orm'
import type { SQL } from 'bun'
import type { Db, MayWrite, SqliteDb } from '../db/client'
import { siteChanges, teams } from '../db/schema'
import { enqueueEvent } from '../core/events/record'
import type { EventPayload } from '../core/webhooks/model'
import { shouldEmit } from './coalesce'

/**
 * The content-index job. This service keeps the pushed index definition but builds no search
 * index of its own, so the job has nothing to rebuild: it records the pushed generation as
 * applied. A deployment with a real index build would set `indexedGeneration` when it finishes,
 * and site.changed waits for that (bounded by the max hold).
 */
export async function runIndexJob(db: Db, mayWrite: MayWrite = () => true): Promise<number> {
  if (db.engine === 'pg') return await runIndexJobOnPg(db.sql)
  // A read first, as for claims: an idle poll never takes the write lock.
  if (!db.$client.query('SELECT 1 FROM teams WHERE indexed_generation < index_generation LIMIT 1').get() || !mayWrite()) return 0
  return db.$client.query('UPDATE teams SET indexed_generation = index_generation WHERE indexed_generation < index_generation').run().changes
}

/**
 * Emits the coalesced `site.changed` of every team whose held changes are due at `now`.
 * Safe with two dispatchers: the marking UPDATE decides who emits.
 * Returns the team ids that got an event.
 */
export async function emitDueSiteChanges(db: Db, rules: SiteChangeRules, mayWrite: MayWrite = () => true): Promise<string[]> {
  if (db.engine === 'pg') return await emitDueSiteChangesOnPg(db, rules)
  return await emitDueSiteChangesOnSqlite(db, rules, mayWrite)
}

type SiteChangeRules = { now: number; quietMs: number; maxHoldMs: number }

async function emitDueSiteChangesOnSqlite(db: SqliteDb, rules: SiteChangeRules, mayWrite: MayWrite): Promise<string[]> {
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

/** `runIndexJob` on PostgreSQL: the same read first, then the same UPDATE (no write lock to ask for). */
async function runIndexJobOnPg(sql: SQL): Promise<number> {
  const [pending] = await sql`SELECT 1 FROM teams WHERE indexed_generation < index_generation LIMIT 1`
  if (!pending) return 0
  const done = await sql`UPDATE teams SET indexed_generation = index_generation WHERE indexed_generation < index_generation`
  return done.count
}

interface HeldOnPg { team_id: string; first_at: number; last_at: number; max_id: number }

/**
 * `emitDueSiteChanges` on PostgreSQL. Safe with several dispatchers as on SQLite: the marking
 * UPDATE decides who emits (a second dispatcher's UPDATE waits for the first's row locks, then
 * finds the rows marked and covers none).
 */
async function emitDueSiteChangesOnPg(db: Extract<Db, { engine: 'pg' }>, rules: SiteChangeRules): Promise<string[]> {
  const held = await db.sql<HeldOnPg[]>`
    SELECT team_id, min(occurred_at)::float8 AS first_at, max(occurred_at)::float8 AS last_at, max(id)::float8 AS max_id
    FROM site_changes WHERE emitted_at IS NULL GROUP BY team_id`
  const emitted: string[] = []
  for (const h of held) {
    const [team] = await db.sql<{ id: string; workspace_id: string; caught_up: boolean }[]>`
      SELECT id, workspace_id, indexed_generation >= index_generation AS caught_up FROM teams WHERE id = ${h.team_id}`
    const indexCaughtUp = !team || team.caught_up
    if (!shouldEmit({ firstAt: h.first_at, lastAt: h.last_at }, { ...rules, indexCaughtUp })) continue
    const done = await db.transaction(async (tx) => {
      if (tx.engine !== 'pg') throw new Error('a PostgreSQL transaction gave a SQLite handle')
      const covered = await tx.sql`
        UPDATE site_changes SET emitted_at = ${rules.now}
        WHERE team_id = ${h.team_id} AND emitted_at IS NULL AND id <= ${h.max_id} RETURNING id`
      if (covered.length === 0 || !team) return false
      // The latest change names the status and the acting user of the coalesced event.
      const [latest] = await tx.sql<{ occurred_at: number; user_id: string | null; status: string }[]>`
        SELECT occurred_at::float8 AS occurred_at, user_id, status FROM site_changes
        WHERE team_id = ${h.team_id} AND id <= ${h.max_id} ORDER BY id DESC LIMIT 1`
      await enqueueEvent(tx, {
        v: 2, eventType: 'site.changed', eventId: Bun.randomUUIDv7(), occurredAt: new Date(latest!.occurred_at).toISOString(),
        teamId: team.id, workspaceId: team.workspace_id, userId: latest!.user_id, documentId: null, collection: null,
        locales: [], status: latest!.status as EventPayload['status'], url: '', urls: {}, previousUrls: [], scope: 'site',
      }, rules.now)
      return true
    })
    if (done) emitted.push(h.team_id)
  }
  return emitted
}
