/**
 * Team settings of contract.md "Team settings": each change the site can see writes a
 * site_changes row in the same transaction; the dispatcher coalesces them into site.changed.
 * A PUT that changes nothing records nothing.
 */
import { and, eq, ne, sql } from 'drizzle-orm'
import type { Conn, Db, Tx } from '../../db/client'
import { nextChangeVector } from '../../db/store'
import { contentTypes, documents, teams } from '../../db/schema'
import { badRequest, echoList, notFound } from '../errors'
import { recordSiteChange } from '../events/record'
import { getContentType, getTeam, listContentTypes } from './service'
import { isSiteVisibleChange } from './site-visible'
import { fieldsProblem } from './model'

type Actor = { teamId: string; userId: string }

const settingsOf = (t: { locales: string[]; defaultLocale: string; fallbacks: Record<string, string> }) =>
  ({ locales: t.locales, defaultLocale: t.defaultLocale, fallbacks: t.fallbacks })

const sorted = (m: Record<string, string>) => JSON.stringify(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
const sameMap = (a: Record<string, string>, b: Record<string, string>) => sorted(a) === sorted(b)

function requireTeam(conn: Conn, teamId: string) {
  const team = getTeam(conn, teamId)
  if (!team) throw notFound('Team not found.')
  return team
}

/** What `PUT .../locales` takes: `{locales, defaultLocale}`. */
export function readLocales(db: Db, teamId: string) {
  const team = requireTeam(db, teamId)
  return { locales: team.locales, defaultLocale: team.defaultLocale }
}

/** What `PUT .../localization` takes: `{fallbacks}`. */
export function readLocalization(db: Db, teamId: string) {
  return { fallbacks: requireTeam(db, teamId).fallbacks }
}

/** A content type as stored, with `urls` spelled out (left out of a PUT, it is false). */
const definitionOf = (row: { definition: Record<string, unknown>; urls: boolean; collection: string; name: string }) =>
  ({ ...row.definition, name: row.name, collection: row.collection, urls: row.urls }) as Record<string, unknown> & { name: string; collection: string; urls: boolean; fields: { name: string }[] }

/** Every content type of the team, by name. */
export function readContentTypes(db: Db, teamId: string) {
  requireTeam(db, teamId)
  return listContentTypes(db, teamId).map(definitionOf)
}

export function readContentType(db: Db, teamId: string, name: string) {
  requireTeam(db, teamId)
  const row = getContentType(db, teamId, name)
  if (!row) throw notFound('Content type not found.')
  return definitionOf(row)
}

export function readContentIndex(db: Db, teamId: string) {
  const team = requireTeam(db, teamId)
  return { definition: (team.contentIndex ?? null) as Record<string, unknown> | null, indexGeneration: team.indexGeneration, indexedGeneration: team.indexedGeneration }
}

/** Why a locales setting cannot be taken, or null. Shared with the seed command (cli/seed.ts). */
export function localesProblem(input: { locales: string[]; defaultLocale: string }): string | null {
  // Tags are case-insensitive (BCP 47): `en` and `EN` are one language, not two.
  if (new Set(input.locales.map((l) => l.toLowerCase())).size !== input.locales.length) return 'Locales must be unique (ignoring case).'
  if (!input.locales.includes(input.defaultLocale)) return '`defaultLocale` must be one of `locales`.'
  return null
}

/**
 * Writes a team's locales inside `tx` (the team exists, `localesProblem` passed): fallbacks that
 * name a removed locale go with it, and a site change is recorded when anything changed.
 */
export function writeLocales(tx: Tx, a: Actor, input: { locales: string[]; defaultLocale: string }) {
  const team = requireTeam(tx, a.teamId)
  const fallbacks = Object.fromEntries(Object.entries(team.fallbacks).filter(([k, v]) => input.locales.includes(k) && input.locales.includes(v)))
  const next = { locales: input.locales, defaultLocale: input.defaultLocale, fallbacks }
  if (JSON.stringify(settingsOf(team)) === JSON.stringify(next)) return next
  tx.update(teams).set(next).where(eq(teams.id, a.teamId)).run()
  recordSiteChange(tx, { teamId: a.teamId, status: 'locales', userId: a.userId })
  return next
}

export function setLocales(db: Db, a: Actor, input: { locales: string[]; defaultLocale: string }) {
  const problem = localesProblem(input)
  if (problem) throw badRequest('invalid_body', problem)
  return db.transaction((tx) => writeLocales(tx, a, input), { behavior: 'immediate' })
}

export function setLocalization(db: Db, a: Actor, input: { fallbacks: Record<string, string> }) {
  return db.transaction((tx) => {
    const team = requireTeam(tx, a.teamId)
    for (const [from, to] of Object.entries(input.fallbacks)) {
      if (!team.locales.includes(from) || !team.locales.includes(to) || from === to) {
        throw badRequest('invalid_body', `Fallback ${echoList([from])} -> ${echoList([to])} must join two different configured locales.`)
      }
    }
    // A chain that comes back to where it started (`de -> fr -> de`) never finds content.
    for (const start of Object.keys(input.fallbacks)) {
      const seen = new Set([start])
      for (let at = input.fallbacks[start]; at !== undefined; at = input.fallbacks[at]) {
        if (seen.has(at)) throw badRequest('invalid_body', `The fallbacks of ${start} go round in a circle.`)
        seen.add(at)
      }
    }
    // The same map in another key order is the same setting.
    if (sameMap(team.fallbacks, input.fallbacks)) return settingsOf(team)
    tx.update(teams).set({ fallbacks: input.fallbacks }).where(eq(teams.id, a.teamId)).run()
    recordSiteChange(tx, { teamId: a.teamId, status: 'localization', userId: a.userId })
    return settingsOf({ ...team, fallbacks: input.fallbacks })
  }, { behavior: 'immediate' })
}

/** Creates or replaces a content type; `template` only for a change the site can see. */
export function putContentType(db: Db, a: Actor, name: string, input: ContentTypeBody) {
  if (input.name !== undefined && input.name !== name) throw badRequest('invalid_body', 'The body `name` must match the path.')
  const problem = fieldsProblem(input.fields)
  if (problem) throw badRequest('invalid_body', problem)
  return db.transaction((tx) => {
    requireTeam(tx, a.teamId)
    const visible = writeContentType(tx, a.teamId, name, input)
    if (visible) recordSiteChange(tx, { teamId: a.teamId, status: 'template', userId: a.userId })
    return { definition: { ...input, name }, siteChanged: visible }
  }, { behavior: 'immediate' })
}

type ContentTypeBody = Record<string, unknown> & { collection: string; urls?: boolean; fields: { name: string }[] }

/**
 * Creates or replaces content type `name` inside `tx` (its fields checked): the type's documents
 * move with a new collection. Returns whether the site can see the change; the caller records it.
 * Shared with the seed command (cli/seed.ts).
 */
export function writeContentType(tx: Conn, teamId: string, name: string, input: ContentTypeBody): boolean {
  const definition = { ...input, name }
  const current = getContentType(tx, teamId, name)
  const values = { teamId, name, collection: input.collection, urls: input.urls ?? false, definition }
  tx.insert(contentTypes).values(values).onConflictDoUpdate({ target: [contentTypes.teamId, contentTypes.name], set: values }).run()
  // The type's documents move with it: their stored collection is what lists and events name.
  // Each gets a new change vector: `@collection` is part of what a read answers, so a client
  // holding the old copy (If-None-Match) must not be told it is current.
  if (current && current.collection !== values.collection) moveCollection(tx, teamId, name, values.collection)
  // `urls` left out means false (docs/api/teams-and-settings.md#content-types): leaving it out of a type without URLs changes nothing.
  return isSiteVisibleChange(current && { ...current.definition, urls: current.urls }, { ...definition, urls: values.urls })
}

/** Moves every document of content type `name` (siblings too, activity documents not) to `collection`. */
function moveCollection(tx: Conn, teamId: string, name: string, collection: string) {
  const moved = tx.select({ id: documents.id }).from(documents)
    .where(and(eq(documents.teamId, teamId), ne(documents.kind, 'activity'), sql`json_extract(${documents.body}, '$.contentType') = ${name}`)).all()
  const updatedAt = new Date().toISOString()
  for (const { id } of moved) {
    tx.update(documents).set({ collection, changeVector: nextChangeVector(tx), updatedAt })
      .where(and(eq(documents.teamId, teamId), eq(documents.id, id))).run()
  }
}

/**
 * Deploys the content index definition (the push command's endpoint): stores it and bumps
 * `indexGeneration`; site.changed waits until the index job has caught up with it.
 */
export function pushContentIndex(db: Db, a: Actor, definition: unknown) {
  return db.transaction((tx) => {
    requireTeam(tx, a.teamId)
    const row = tx.update(teams)
      .set({ contentIndex: definition, indexGeneration: sql`${teams.indexGeneration} + 1` })
      .where(and(eq(teams.id, a.teamId)))
      .returning({ indexGeneration: teams.indexGeneration })
      .get()!
    recordSiteChange(tx, { teamId: a.teamId, status: 'index', userId: a.userId })
    return { indexGeneration: row.indexGeneration }
  }, { behavior: 'immediate' })
}
