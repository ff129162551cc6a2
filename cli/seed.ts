/**
 * Seeding in the format of contract.md, idempotent: teams, users (token hashes), memberships,
 * content types and documents are created or updated; a `"published": true` document is
 * published by user `cli` only when its content differs from what is live, so re-running a
 * seed leaves no extra Published Version.
 */
import { Type as t, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Db, Tx } from '../db/client'
import { holdSeedLock, insertTeam, setTeamWorkspace } from '../db/queries/teams'
import { upsertMembership, upsertUser } from '../db/queries/users'
import { hashToken, MAX_TOKEN_LENGTH, revokedTokenHash, CAPABILITIES } from '../core/auth'
import { stripStamp } from '../core/documents/document'
import { writeDocument, loadLive } from '../core/content/service'
import { AppError } from '../core/errors'
import { bodyProblem, MAX_BODY_DEPTH } from '../core/body'
import { expectation } from '../core/schema-errors'
import { DEFAULT_MAX_BODY_BYTES } from '../core/config'
import { publishBatch } from '../core/publish/service'
import { getTeam, hasAnyTeam } from '../core/teams/service'
import { localesProblem, writeContentType, writeLocales } from '../core/teams/settings'
import { ContentTypeField, ContentTypeName, fieldsProblem, LocaleCode } from '../core/teams/model'
import { recordSiteChange } from '../core/events/record'
import type { Metrics } from '../core/metrics'
import type { DocumentRow } from '../db/schema'
import demo from '../db/seed/demo.json'

export const ContentTypeInput = t.Object(
  {
    name: ContentTypeName,
    collection: t.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
    urls: t.Optional(t.Boolean()),
    fields: t.Array(ContentTypeField),
  },
  { additionalProperties: true },
)
export const SeedFile = t.Object({
  teams: t.Array(
    t.Object({
      // A team id is a path segment of every route (`/teams/{teamId}`, `/content/{activeTeam}`).
      id: t.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
      workspaceId: t.String({ minLength: 1 }),
      locales: t.Array(LocaleCode, { minItems: 1 }),
      defaultLocale: t.String(),
      contentTypes: t.Optional(t.Array(ContentTypeInput)),
      users: t.Optional(
        // `token: null` revokes the user's token: no request signs in as this user any more.
        t.Array(t.Object({ id: t.String({ minLength: 1 }), token: t.Union([t.String({ minLength: 8, maxLength: MAX_TOKEN_LENGTH }), t.Null()]), capabilities: t.Array(t.Union(CAPABILITIES.map((c) => t.Literal(c)))) })),
      ),
      documents: t.Optional(
        t.Array(
          t.Object({
            id: t.String(),
            contentType: t.String(),
            published: t.Optional(t.Boolean()),
            fields: t.Optional(t.Record(t.String(), t.Unknown())),
            locales: t.Optional(t.Record(t.String(), t.Record(t.String(), t.Unknown()))),
          }),
        ),
      ),
    }),
  ),
})
export type SeedFile = Static<typeof SeedFile>

export const CLI_USER = 'cli'

export interface SeedOptions {
  /** A document's JSON at most this many bytes, as `POST /content` takes it (MAX_BODY_BYTES). */
  maxDocumentBytes?: number
}

/**
 * What can be told of a seed file without a database: its shape, a team or document named twice,
 * a team's default locale and content type fields, the api's input limits. Throws the reason.
 */
export function checkSeedFile(input: unknown, opts: SeedOptions = {}): asserts input is SeedFile {
  if (!Value.Check(SeedFile, input)) {
    const first = Value.Errors(SeedFile, input).First()
    throw new Error(`Invalid seed file at ${first?.path || '/'}: ${first ? expectation(first) : ''}`)
  }
  refuseRepeats(input)
  for (const team of input.teams) {
    // A token the Authorization header cannot carry as it is (a space, a non-ASCII character)
    // would be stored and never match: refused here rather than seeded as a user who cannot sign in.
    const unusable = team.users?.find((u) => u.token !== null && !/^[\x21-\x7e]+$/.test(u.token))
    if (unusable) throw new Error(`Team ${team.id}, user ${unusable.id}: a token is 8 to ${MAX_TOKEN_LENGTH} printable ASCII characters without spaces (it is sent as \`Authorization: Bearer <token>\`).`)
    const locales = localesProblem(team)
    if (locales) throw new Error(`Team ${team.id}: ${locales}`)
    for (const type of team.contentTypes ?? []) {
      const problem = fieldsProblem(type.fields)
      if (problem) throw new Error(`Team ${team.id}, content type ${type.name}: ${problem}`)
    }
  }
  refuseOversized(input, opts.maxDocumentBytes ?? DEFAULT_MAX_BODY_BYTES)
}

/** Checks (`checkSeedFile`) and applies a seed file. Returns what was written, for the CLI to print. */
export async function seed(db: Db, metrics: Metrics | null, input: unknown, opts: SeedOptions = {}) {
  checkSeedFile(input, opts)
  return await applySeed(db, metrics, input)
}

/**
 * Applies a seed file `checkSeedFile` passed, all or nothing: a seed that fails partway (an
 * unknown content type, a refused publish) leaves the database as it was. Every write below runs
 * on this transaction's `tx` and nests as a savepoint in it (on PostgreSQL the root `db` is the
 * pool, outside it). One seed at a time: SQLite's IMMEDIATE takes the write lock at BEGIN, and
 * on PostgreSQL `holdSeedLock` takes a lock of its own.
 */
export async function applySeed(db: Db, metrics: Metrics | null, input: SeedFile) {
  return await db.transaction(async (tx) => {
    await holdSeedLock(tx)
    return await apply(tx, metrics, input)
  }, { behavior: 'immediate' })
}

/**
 * A seeded document meets the limits a `POST /content` of it would (docs/api/overview.md#limits): nested at
 * most MAX_BODY_DEPTH deep, no number that overflows to Infinity (stored as `null`), at most
 * `maxBytes` of JSON. The api could not read or rewrite a document beyond them.
 */
function refuseOversized(input: SeedFile, maxBytes: number): void {
  for (const team of input.teams) {
    for (const doc of team.documents ?? []) {
      const { published: _, ...body } = doc
      const problem = bodyProblem(body, MAX_BODY_DEPTH, 'The document')
        ?? (Buffer.byteLength(JSON.stringify(body)) > maxBytes ? `The document exceeds ${maxBytes} bytes of JSON (MAX_BODY_BYTES).` : null)
      if (problem) throw new Error(`Team ${team.id}, document ${JSON.stringify(doc.id)}: ${problem}`)
    }
  }
}

/** A team or a document named twice: the second would be applied again (a document published twice leaves two versions). */
function refuseRepeats(input: SeedFile): void {
  const teamIds = new Set<string>()
  for (const team of input.teams) {
    if (teamIds.has(team.id)) throw new Error(`Team ${team.id} is named twice in the seed file.`)
    teamIds.add(team.id)
    const docIds = new Set<string>()
    for (const doc of team.documents ?? []) {
      if (docIds.has(doc.id)) throw new Error(`Team ${team.id}, document ${JSON.stringify(doc.id)}: named twice in the seed file.`)
      docIds.add(doc.id)
    }
  }
}

async function apply(db: Tx, metrics: Metrics | null, input: SeedFile) {
  const report = { teams: 0, documents: 0, published: 0 }
  for (const team of input.teams) {
    await db.transaction(async (tx) => {
      // An existing team's languages or templates change as through the settings routes
      // (core/teams/settings.ts: fallbacks naming a removed locale go, a type's documents move with
      // its collection, a site change for what the site can see); a new team has no site to tell yet.
      const existing = await getTeam(tx, team.id)
      const actor = { teamId: team.id, userId: CLI_USER }
      if (existing) {
        await setTeamWorkspace(tx, team.id, team.workspaceId)
        await writeLocales(tx, actor, team)
      } else {
        await insertTeam(tx, { id: team.id, workspaceId: team.workspaceId, locales: team.locales, defaultLocale: team.defaultLocale, createdAt: new Date().toISOString() })
      }
      let templateChanged = false
      for (const type of team.contentTypes ?? []) templateChanged = await writeContentType(tx, team.id, type.name, type) || templateChanged
      if (existing && templateChanged) await recordSiteChange(tx, { teamId: team.id, status: 'template', userId: CLI_USER })
      for (const user of [...(team.users ?? []), { id: CLI_USER, token: null, capabilities: [...CAPABILITIES] }]) {
        const tokenHash = user.token ? hashToken(user.token) : revokedTokenHash(user.id)
        await upsertUser(tx, user.id, tokenHash)
        await upsertMembership(tx, { teamId: team.id, userId: user.id, capabilities: user.capabilities as string[] })
      }
    }, { behavior: 'immediate' })
    report.teams++
    const toPublish: string[] = []
    // A live document rewritten and then published: the publish's event alone tells the change,
    // compared with what was live before the write (one event, naming the old paths).
    const liveBefore = new Map<string, DocumentRow>()
    for (const doc of team.documents ?? []) {
      const { published, ...input } = doc
      const current = await loadLive(db, team.id, doc.id)
      const wanted = { ...input, fields: input.fields ?? {}, locales: input.locales ?? {} }
      const changed = !current || !sameContent(current.body, wanted)
      if (changed) {
        const publishesNext = published === true && current?.published === true
        if (publishesNext) liveBefore.set(doc.id, current)
        try {
          await writeDocument(db, { teamId: team.id, userId: CLI_USER, doc: wanted, mayChangeLive: true, publishesNext })
        } catch (e) {
          // The route's refusal, said of the seed file's entry that caused it.
          if (e instanceof AppError) throw new Error(`Team ${team.id}, document ${doc.id}: ${e.message}`)
          throw e
        }
        report.documents++
      }
      if (published && (changed || !current?.published)) toPublish.push(doc.id)
    }
    // After every write, parents first (as a batch publish), so each event names its page's path.
    for (const item of await publishBatch(db, metrics, toPublish, { teamId: team.id, stampUserId: CLI_USER, actorUserId: CLI_USER, source: 'cli', liveBefore })) {
      if (item.status !== 0) throw new Error(`Publishing ${item.id} failed: ${item.reason}`)
      report.published++
    }
  }
  return report
}

function sameContent(stored: Record<string, unknown>, wanted: Record<string, unknown>) {
  const pick = (b: Record<string, unknown>) => JSON.stringify([b.contentType, b.fields, b.locales])
  return pick(stripStamp(stored)) === pick(wanted)
}

/** Seeds the demo team when the database holds no team at all. */
export async function seedDemoIfEmpty(db: Db, metrics: Metrics | null): Promise<boolean> {
  if (await hasAnyTeam(db)) return false
  await seed(db, metrics, demo)
  return true
}
