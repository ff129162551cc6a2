/**
 * Team settings of contract.md "Team settings": each change the site can see writes a
 * site_changes row in the same transaction; the dispatcher coalesces them into site.changed.
 * A PUT that changes nothing records nothing.
 */
import type { Conn, Db, Tx } from '../../db/client'
import { moveContentTypeDocuments, storeContentIndex, updateTeamSettings, upsertContentType } from '../../db/queries/teams'
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

async function requireTeam(conn: Conn, teamId: string) {
  const team = await getTeam(conn, teamId)
  if (!team) throw notFound('Team not found.')
  return team
}

/** What `PUT .../locales` takes: `{locales, defaultLocale}`. */
export async function readLocales(db: Db, teamId: string) {
  const team = await requireTeam(db, teamId)
  return { locales: team.locales, defaultLocale: team.defaultLocale }
}

/** What `PUT .../localization` takes: `{fallbacks}`. */
export async function readLocalization(db: Db, teamId: string) {
  return { fallbacks: (await requireTeam(db, teamId)).fallbacks }
}

/** A content type as stored, with `urls` spelled out (left out of a PUT, it is false). */
const definitionOf = (row: { definition: Record<string, unknown>; urls: boolean; collection: string; name: string }) =>
  ({ ...row.definition, name: row.name, collection: row.collection, urls: row.urls }) as Record<string, unknown> & { name: string; collection: string; urls: boolean; fields: { name: string }[] }

/** Every content type of the team, by name. */
export async function readContentTypes(db: Db, teamId: string) {
  await requireTeam(db, teamId)
  return (await listContentTypes(db, teamId)).map(definitionOf)
}

export async function readContentType(db: Db, teamId: string, name: string) {
  await requireTeam(db, teamId)
  const row = await getContentType(db, teamId, name)
  if (!row) throw notFound('Content type not found.')
  return definitionOf(row)
}

export async function readContentIndex(db: Db, teamId: string) {
  const team = await requireTeam(db, teamId)
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
export async function writeLocales(tx: Tx, a: Actor, input: { locales: string[]; defaultLocale: string }) {
  const team = await requireTeam(tx, a.teamId)
  const fallbacks = Object.fromEntries(Object.entries(team.fallbacks).filter(([k, v]) => input.locales.includes(k) && input.locales.includes(v)))
  const next = { locales: input.locales, defaultLocale: input.defaultLocale, fallbacks }
  if (JSON.stringify(settingsOf(team)) === JSON.stringify(next)) return next
  await updateTeamSettings(tx, a.teamId, next)
  await recordSiteChange(tx, { teamId: a.teamId, status: 'locales', userId: a.userId })
  return next
}

export async function setLocales(db: Db, a: Actor, input: { locales: string[]; defaultLocale: string }) {
  const problem = localesProblem(input)
  if (problem) throw badRequest('invalid_body', problem)
  return await db.transaction(async (tx) => await writeLocales(tx, a, input), { behavior: 'immediate' })
}

export async function setLocalization(db: Db, a: Actor, input: { fallbacks: Record<string, string> }) {
  return await db.transaction(async (tx) => {
    const team = await requireTeam(tx, a.teamId)
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
    await updateTeamSettings(tx, a.teamId, { fallbacks: input.fallbacks })
    await recordSiteChange(tx, { teamId: a.teamId, status: 'localization', userId: a.userId })
    return settingsOf({ ...team, fallbacks: input.fallbacks })
  }, { behavior: 'immediate' })
}

/** Creates or replaces a content type; `template` only for a change the site can see. */
export async function putContentType(db: Db, a: Actor, name: string, input: ContentTypeBody) {
  if (input.name !== undefined && input.name !== name) throw badRequest('invalid_body', 'The body `name` must match the path.')
  const problem = fieldsProblem(input.fields)
  if (problem) throw badRequest('invalid_body', problem)
  return await db.transaction(async (tx) => {
    await requireTeam(tx, a.teamId)
    const visible = await writeContentType(tx, a.teamId, name, input)
    if (visible) await recordSiteChange(tx, { teamId: a.teamId, status: 'template', userId: a.userId })
    return { definition: { ...input, name }, siteChanged: visible }
  }, { behavior: 'immediate' })
}

type ContentTypeBody = Record<string, unknown> & { collection: string; urls?: boolean; fields: { name: string }[] }

/**
 * Creates or replaces content type `name` inside `tx` (its fields checked): the type's documents
 * move with a new collection. Returns whether the site can see the change; the caller records it.
 * Shared with the seed command (cli/seed.ts).
 */
export async function writeContentType(tx: Conn, teamId: string, name: string, input: ContentTypeBody): Promise<boolean> {
  const definition = { ...input, name }
  const current = await getContentType(tx, teamId, name)
  const values = { teamId, name, collection: input.collection, urls: input.urls ?? false, definition }
  await upsertContentType(tx, values)
  // The type's documents move with it: their stored collection is what lists and events name.
  // Each gets a new change vector: `@collection` is part of what a read answers, so a client
  // holding the old copy (If-None-Match) must not be told it is current.
  if (current && current.collection !== values.collection) await moveContentTypeDocuments(tx, teamId, name, values.collection)
  // `urls` left out means false (docs/api/teams-and-settings.md#content-types): leaving it out of a type without URLs changes nothing.
  return isSiteVisibleChange(current && { ...current.definition, urls: current.urls }, { ...definition, urls: values.urls })
}

/**
 * Deploys the content index definition (the push command's endpoint): stores it and bumps
 * `indexGeneration`; site.changed waits until the index job has caught up with it.
 */
export async function pushContentIndex(db: Db, a: Actor, definition: unknown) {
  return await db.transaction(async (tx) => {
    await requireTeam(tx, a.teamId)
    const indexGeneration = (await storeContentIndex(tx, a.teamId, definition))!
    await recordSiteChange(tx, { teamId: a.teamId, status: 'index', userId: a.userId })
    return { indexGeneration }
  }, { behavior: 'immediate' })
}
